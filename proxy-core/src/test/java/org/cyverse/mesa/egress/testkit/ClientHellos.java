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
        return record(22, message(serverName));
    }

    /**
     * A client_hello handshake message (type, 24-bit length, body) whose server_name extension
     * lists {@code names} as host_name entries, in one list; no server_name extension without names.
     */
    public static byte[] message(String... names) {
        byte[] ext = new byte[0];
        if (names.length > 0) {
            ByteArrayOutputStream list = new ByteArrayOutputStream();
            for (String n : names) {
                byte[] name = n.getBytes(StandardCharsets.US_ASCII);
                list.write(0); // host_name
                u16(list, name.length);
                list.writeBytes(name);
            }
            byte[] entries = list.toByteArray();
            ByteArrayOutputStream extensions = new ByteArrayOutputStream();
            u16(extensions, 0x0000); // server_name
            u16(extensions, entries.length + 2);
            u16(extensions, entries.length); // server_name_list length
            extensions.writeBytes(entries);
            ext = extensions.toByteArray();
        }
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
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        message.write(1); // client_hello
        message.write(0);
        u16(message, body.length);
        message.writeBytes(body);
        return message.toByteArray();
    }

    /** One TLS record of {@code type} (22 handshake, 20 change_cipher_spec, 21 alert, 23 application data) holding {@code fragment}. */
    public static byte[] record(int type, byte[] fragment) {
        ByteArrayOutputStream record = new ByteArrayOutputStream();
        record.write(type);
        u16(record, 0x0301);
        u16(record, fragment.length);
        record.writeBytes(fragment);
        return record.toByteArray();
    }

    /** The bytes of {@code parts}, one after another. */
    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** {@code bytes[from, to)}. */
    public static byte[] slice(byte[] bytes, int from, int to) {
        return java.util.Arrays.copyOfRange(bytes, from, to);
    }

    private static void u16(ByteArrayOutputStream out, int v) {
        out.write((v >> 8) & 0xff);
        out.write(v & 0xff);
    }
}
