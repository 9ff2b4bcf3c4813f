package org.cyverse.mesa.egress.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A minimal TLS 1.2 ClientHello with an arbitrary server_name, including names the JDK refuses to
 * send (e.g. {@code host:port}, which Go clients such as hey do send).
 */
public final class ClientHellos {

    private ClientHellos() {}

    public static byte[] withServerName(String serverName) {
        byte[] name = serverName.getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream sni = new ByteArrayOutputStream();
        u16(sni, name.length + 3); // server_name_list length
        sni.write(0); // host_name
        u16(sni, name.length);
        sni.writeBytes(name);
        byte[] sniBody = sni.toByteArray();

        ByteArrayOutputStream extensions = new ByteArrayOutputStream();
        u16(extensions, 0x0000); // server_name
        u16(extensions, sniBody.length);
        extensions.writeBytes(sniBody);
        byte[] ext = extensions.toByteArray();

        ByteArrayOutputStream hello = new ByteArrayOutputStream();
        u16(hello, 0x0303); // TLS 1.2
        hello.writeBytes(new byte[32]); // random
        hello.write(0); // session id
        u16(hello, 2);
        u16(hello, 0xc02f); // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
        hello.write(1);
        hello.write(0); // null compression
        u16(hello, ext.length);
        hello.writeBytes(ext);
        byte[] body = hello.toByteArray();

        ByteArrayOutputStream record = new ByteArrayOutputStream();
        record.write(22); // handshake
        u16(record, 0x0301);
        u16(record, body.length + 4);
        record.write(1); // client_hello
        record.write(0);
        u16(record, body.length);
        record.writeBytes(body);
        return record.toByteArray();
    }

    private static void u16(ByteArrayOutputStream out, int v) {
        out.write((v >> 8) & 0xff);
        out.write(v & 0xff);
    }
}
