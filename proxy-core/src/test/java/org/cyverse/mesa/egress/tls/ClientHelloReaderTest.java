package org.cyverse.mesa.egress.tls;

import static org.cyverse.mesa.egress.testkit.ClientHellos.concat;
import static org.cyverse.mesa.egress.testkit.ClientHellos.message;
import static org.cyverse.mesa.egress.testkit.ClientHellos.record;
import static org.cyverse.mesa.egress.testkit.ClientHellos.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.cyverse.mesa.egress.tls.ClientHelloReader.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per framing a ClientHello can come in: what a TLS server would read is what the check reads, or it is refused. */
class ClientHelloReaderTest {

    private static final byte[] HELLO = message("front.test");
    private static final byte[] EMPTY_HANDSHAKE = record(22, new byte[0]);
    private static final byte[] CCS = record(20, new byte[] {1});
    private static final byte[] ALERT = record(21, new byte[] {1, 0});

    static Stream<Arguments> rows() {
        byte[] twoNames = message("front.test", "hidden.test");
        byte[] noName = message();
        byte[] duplicateExtension = withDuplicateExtension(HELLO);
        return Stream.of(
                Arguments.of("one record", record(22, HELLO), Verdict.HELLO, "front.test"),
                Arguments.of("split across two handshake records", concat(record(22, slice(HELLO, 0, 20)), record(22, slice(HELLO, 20, HELLO.length))),
                        Verdict.HELLO, "front.test"),
                Arguments.of("without a server name", record(22, noName), Verdict.HELLO, null),
                Arguments.of("early data after the hello", concat(record(22, HELLO), record(23, new byte[] {9, 9})), Verdict.HELLO, "front.test"),
                Arguments.of("half a record", slice(record(22, HELLO), 0, 30), Verdict.NEED_MORE, null),
                Arguments.of("the first of two records", record(22, slice(HELLO, 0, 20)), Verdict.NEED_MORE, null),
                Arguments.of("an empty handshake record first", concat(EMPTY_HANDSHAKE, record(22, message("hidden.test"))), Verdict.MALFORMED, "a handshake record of 0 bytes"),
                Arguments.of("change_cipher_spec first", concat(CCS, record(22, message("hidden.test"))), Verdict.MALFORMED, "the first record is not a handshake record"),
                Arguments.of("an alert between the fragments", concat(record(22, slice(HELLO, 0, 20)), ALERT, record(22, slice(HELLO, 20, HELLO.length))),
                        Verdict.MALFORMED, "a record of type 21 interrupts"),
                Arguments.of("application data first", concat(record(23, new byte[] {1}), record(22, HELLO)), Verdict.MALFORMED, "the first record is not a handshake record"),
                Arguments.of("two host names", record(22, twoNames), Verdict.MALFORMED, "not exactly one host_name"),
                Arguments.of("a name type other than host_name", record(22, withNameType(HELLO, 1)), Verdict.MALFORMED, "not exactly one host_name"),
                Arguments.of("the same extension twice", record(22, duplicateExtension), Verdict.MALFORMED, "appears twice"),
                Arguments.of("another handshake message after the hello in its record", record(22, concat(HELLO, new byte[] {20, 0, 0, 0})),
                        Verdict.MALFORMED, "bytes follow the ClientHello in its record"),
                Arguments.of("a handshake message that is not a ClientHello", record(22, concat(new byte[] {2, 0, 0, 2}, new byte[] {3, 3})),
                        Verdict.MALFORMED, "not client_hello"),
                Arguments.of("bytes that only look like a record", "\u0016\u0003\u0001\u0000\u0005hello".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                        Verdict.MALFORMED, "not client_hello"),
                Arguments.of("SSL 2 framing", new byte[] {(byte) 0x80, 0x2e, 1, 0, 2}, Verdict.MALFORMED, "not a handshake record"),
                Arguments.of("a record version that is not TLS", withRecordVersion(record(22, HELLO), 2), Verdict.MALFORMED, "is not TLS"),
                Arguments.of("a hello longer than its record allows", withHelloLength(record(22, HELLO), 70_000), Verdict.MALFORMED, "a ClientHello of 70000 bytes"),
                Arguments.of("an encrypted ClientHello extension", record(22, withExtension(HELLO, 0xfe0d)), Verdict.MALFORMED, "encrypted ClientHello"),
                Arguments.of("an ESNI extension", record(22, withExtension(HELLO, 0xffce)), Verdict.MALFORMED, "encrypted ClientHello"),
                Arguments.of("the hello in more records than a TLS stack sends", tinyRecords(HELLO, 17), Verdict.MALFORMED, "more than 16 records"),
                Arguments.of("the hello in 16 records", tinyRecords(HELLO, 16), Verdict.HELLO, "front.test"),
                Arguments.of("extensions' length off by one", record(22, withExtensionsLengthDelta(HELLO, 1)), Verdict.MALFORMED, "extensions' length does not match"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void readsAsATlsServerWould(String name, byte[] bytes, Verdict verdict, String serverName) { // serverName: or why it is malformed
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            ClientHelloReader.Result result = ClientHelloReader.read(in);
            assertEquals(verdict, result.verdict(), String.valueOf(result.problem()));
            if (verdict == Verdict.MALFORMED) {
                assertTrue(result.problem().contains(serverName), "why: " + result.problem()); // the row's last column says why
            } else {
                assertEquals(serverName, result.serverName());
            }
            assertEquals(0, in.readerIndex(), "nothing consumed");
        } finally {
            in.release();
        }
    }

    /** What the JDK, as a client, sends (TLS 1.3, many extensions, key shares) reads as its name. */
    @Test
    void aRealJdkClientHelloReadsWithItsName() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine("api.example.org", 443);
        engine.setUseClientMode(true);
        SSLParameters params = engine.getSSLParameters();
        params.setServerNames(java.util.List.of(new SNIHostName("api.example.org")));
        engine.setSSLParameters(params);
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.beginHandshake();
        engine.wrap(java.nio.ByteBuffer.allocate(0), out);
        out.flip();
        ByteBuf in = Unpooled.wrappedBuffer(out);
        try {
            ClientHelloReader.Result result = ClientHelloReader.read(in);
            assertEquals(Verdict.HELLO, result.verdict(), String.valueOf(result.problem()));
            assertEquals("api.example.org", result.serverName());
        } finally {
            in.release();
        }
    }

    // ---- mutations of a well-formed message (offsets follow ClientHellos.message: 4 header, 2 version, 32 random, 1 session, 2+2 suites, 1+1 compression) ----

    private static final int EXTENSIONS_LENGTH_AT = 4 + 2 + 32 + 1 + 4 + 2;

    private static byte[] withExtensionsLengthDelta(byte[] message, int delta) {
        byte[] m = message.clone();
        int length = ((m[EXTENSIONS_LENGTH_AT] & 0xff) << 8 | (m[EXTENSIONS_LENGTH_AT + 1] & 0xff)) + delta;
        m[EXTENSIONS_LENGTH_AT] = (byte) (length >> 8);
        m[EXTENSIONS_LENGTH_AT + 1] = (byte) length;
        return m;
    }

    private static byte[] withNameType(byte[] message, int type) {
        byte[] m = message.clone();
        m[EXTENSIONS_LENGTH_AT + 2 + 4 + 2] = (byte) type; // extension type, length, list length, then the name type
        return m;
    }

    /** The message with its one extension written twice (lengths fixed up). */
    private static byte[] withDuplicateExtension(byte[] message) {
        byte[] extension = slice(message, EXTENSIONS_LENGTH_AT + 2, message.length);
        byte[] body = concat(slice(message, 4, EXTENSIONS_LENGTH_AT), new byte[] {(byte) (extension.length * 2 >> 8), (byte) (extension.length * 2)},
                extension, extension);
        return concat(new byte[] {1, (byte) (body.length >> 16), (byte) (body.length >> 8), (byte) body.length}, body);
    }

    /** The message with one more (empty) extension of {@code type} after its own. */
    private static byte[] withExtension(byte[] message, int type) {
        byte[] extensions = slice(message, EXTENSIONS_LENGTH_AT + 2, message.length);
        byte[] all = concat(extensions, new byte[] {(byte) (type >> 8), (byte) type, 0, 0});
        byte[] body = concat(slice(message, 4, EXTENSIONS_LENGTH_AT), new byte[] {(byte) (all.length >> 8), (byte) all.length}, all);
        return concat(new byte[] {1, (byte) (body.length >> 16), (byte) (body.length >> 8), (byte) body.length}, body);
    }

    /** The message cut into {@code n} handshake records (the first holds the 4-byte header and one more byte). */
    private static byte[] tinyRecords(byte[] message, int n) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int first = 5;
        out.writeBytes(record(22, slice(message, 0, first)));
        int rest = message.length - first;
        int at = first;
        for (int i = 1; i < n; i++) {
            int size = i == n - 1 ? message.length - at : rest / (n - 1);
            out.writeBytes(record(22, slice(message, at, at + size)));
            at += size;
        }
        return out.toByteArray();
    }

    private static byte[] withRecordVersion(byte[] record, int major) {
        byte[] r = record.clone();
        r[1] = (byte) major;
        return r;
    }

    private static byte[] withHelloLength(byte[] record, int length) {
        byte[] r = record.clone();
        r[6] = (byte) (length >> 16);
        r[7] = (byte) (length >> 8);
        r[8] = (byte) length;
        return r;
    }
}
