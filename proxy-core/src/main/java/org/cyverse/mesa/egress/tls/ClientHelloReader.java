package org.cyverse.mesa.egress.tls;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads the first handshake message of a TLS connection as a server would, strictly, so that the
 * tunnel's server-name check sees exactly the name the upstream's TLS stack will see (issue 17,
 * item 1: record framing around the ClientHello made the check see "no server name" while the
 * upstream read a ClientHello for another, deny-listed name).
 *
 * <p>Accepted: TLS records of type handshake (22), version 3.x, each 1 to 2^14 bytes long (RFC
 * 8446 section 5.1: zero-length handshake fragments are not sent), whose fragments together make
 * exactly one handshake message of type client_hello, ending where a record ends; its body
 * well-formed (RFC 8446 section 4.1.2, RFC 5246 section 7.4.1.2): lengths consistent, at least one
 * cipher suite and one compression method, extensions filling the rest exactly, no extension
 * type twice, and a server_name extension (RFC 6066 section 3) that holds exactly one name, of
 * type host_name, non-empty and printable ASCII, and no encrypted_client_hello (RFC 9849) or ESNI
 * extension, whose inner name the upstream would serve unseen. At most {@value #MAX_RECORDS}
 * records. Anything else is {@link Verdict#MALFORMED}; the bytes are only read, never consumed.
 */
public final class ClientHelloReader {

    /** The largest ClientHello taken (post-quantum key shares make them a few KiB; 64 KiB is generous). */
    public static final int MAX_HELLO_BYTES = 64 * 1024;

    private static final int RECORD_HEADER = TlsRecords.HEADER;
    private static final int MAX_RECORD = TlsRecords.MAX_LENGTH;
    private static final int HANDSHAKE = TlsRecords.HANDSHAKE;
    private static final int CLIENT_HELLO = TlsRecords.CLIENT_HELLO;
    /** More records than a 64 KiB hello needs at 16 KiB each, with room for stacks that split smaller. */
    private static final int MAX_RECORDS = 16;
    private static final int SERVER_NAME = 0;
    /** RFC 9849 encrypted_client_hello, and the draft ESNI it replaced: the real name is encrypted. */
    private static final int ENCRYPTED_CLIENT_HELLO = 0xfe0d;
    private static final int ENCRYPTED_SERVER_NAME = 0xffce;
    private static final int HOST_NAME = 0;

    /** What the bytes read so far are. */
    public enum Verdict { NEED_MORE, MALFORMED, HELLO }

    /**
     * The reading: a verdict, the server name of a {@link Verdict#HELLO} ({@code null} when it
     * names none), why, when malformed, and the bytes the hello's records take (what follows them
     * is the client's next record).
     */
    public record Result(Verdict verdict, String serverName, String problem, int length) {
        static final Result NEED_MORE = new Result(Verdict.NEED_MORE, null, null, 0);

        Result(Verdict verdict, String serverName, String problem) {
            this(verdict, serverName, problem, 0);
        }

        static Result malformed(String problem) {
            return new Result(Verdict.MALFORMED, null, problem);
        }
    }

    private ClientHelloReader() {}

    /** Reads {@code in} from its reader index without moving it. */
    public static Result read(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        // First pass over the record headers only: nothing is copied until the whole hello is there,
        // so a hello trickled in small segments costs a header walk per read, not an allocation.
        int at = start;
        int records = 0;
        int filled = 0;
        int expected = -1;
        while (true) {
            if (end - at < RECORD_HEADER) {
                return Result.NEED_MORE;
            }
            int type = in.getUnsignedByte(at);
            int major = in.getUnsignedByte(at + 1);
            int length = in.getUnsignedShort(at + 3);
            if (type != HANDSHAKE) {
                return Result.malformed(filled == 0 ? "the first record is not a handshake record" : "a record of type " + type
                        + " interrupts the ClientHello");
            }
            if (major != 3) {
                return Result.malformed("record version " + major + "." + in.getUnsignedByte(at + 2) + " is not TLS");
            }
            if (length == 0 || length > MAX_RECORD) {
                return Result.malformed("a handshake record of " + length + " bytes (1 to 16384 allowed)");
            }
            if (++records > MAX_RECORDS) {
                return Result.malformed("a ClientHello in more than " + MAX_RECORDS + " records (TLS stacks split at 16 KiB)");
            }
            if (end - at - RECORD_HEADER < length) {
                return Result.NEED_MORE;
            }
            int fragment = at + RECORD_HEADER;
            if (expected < 0) {
                if (length < 4) {
                    // The message header split across records is legal but never sent; refusing it keeps the reading simple.
                    return Result.malformed("the ClientHello's header is split across records");
                }
                if (in.getUnsignedByte(fragment) != CLIENT_HELLO) {
                    return Result.malformed("the first handshake message is of type " + in.getUnsignedByte(fragment) + ", not client_hello");
                }
                expected = in.getUnsignedMedium(fragment + 1);
                if (expected > MAX_HELLO_BYTES) {
                    return Result.malformed("a ClientHello of " + expected + " bytes");
                }
                filled = length - 4;
            } else {
                filled += length;
            }
            if (filled > expected) {
                return Result.malformed(records == 1 ? "bytes follow the ClientHello in its record" : "bytes follow the ClientHello in its last record");
            }
            at = fragment + length;
            if (filled == expected) {
                Result hello = body(copy(in, start, records, expected));
                return hello.verdict() == Verdict.HELLO ? new Result(Verdict.HELLO, hello.serverName(), null, at - start) : hello;
            }
        }
    }

    /** The ClientHello body out of its {@code records} records (already validated). */
    private static byte[] copy(ByteBuf in, int start, int records, int expected) {
        byte[] hello = new byte[expected];
        int at = start;
        int filled = 0;
        for (int r = 0; r < records; r++) {
            int length = in.getUnsignedShort(at + 3);
            int skip = r == 0 ? 4 : 0;
            in.getBytes(at + RECORD_HEADER + skip, hello, filled, length - skip);
            filled += length - skip;
            at += RECORD_HEADER + length;
        }
        return hello;
    }

    /** The ClientHello body (after its 4-byte header). */
    private static Result body(byte[] b) {
        Cursor c = new Cursor(b, 0, b.length);
        int version = c.u16();
        if (version < 0x0300 || version > 0x0304) {
            return Result.malformed("legacy_version " + Integer.toHexString(version));
        }
        c.skip(32); // random
        int session = c.u8();
        if (session > 32) {
            return Result.malformed("a session id of " + session + " bytes");
        }
        c.skip(session);
        int suites = c.u16();
        if (suites < 2 || suites % 2 != 0) {
            return Result.malformed("cipher suites of " + suites + " bytes");
        }
        c.skip(suites);
        int compressions = c.u8();
        if (compressions < 1) {
            return Result.malformed("no compression method");
        }
        c.skip(compressions);
        if (c.broken()) {
            return Result.malformed("the ClientHello ends inside its fields");
        }
        if (c.remaining() == 0) {
            return new Result(Verdict.HELLO, null, null); // TLS 1.2 allows a ClientHello without extensions
        }
        int extensionsLength = c.u16();
        if (c.broken() || extensionsLength != c.remaining()) {
            return Result.malformed("the extensions' length does not match what follows");
        }
        Set<Integer> types = new HashSet<>();
        String serverName = null;
        while (c.remaining() > 0) {
            int type = c.u16();
            int length = c.u16();
            if (c.broken() || length > c.remaining()) {
                return Result.malformed("an extension runs past the ClientHello");
            }
            if (!types.add(type)) {
                return Result.malformed("extension " + type + " appears twice");
            }
            if (type == ENCRYPTED_CLIENT_HELLO || type == ENCRYPTED_SERVER_NAME) {
                // The server would serve the encrypted inner name, which no check here can read.
                return Result.malformed("an encrypted ClientHello (ECH/ESNI): the server name the upstream would serve is hidden");
            }
            if (type == SERVER_NAME) {
                Object name = serverName(new Cursor(b, c.position(), length));
                if (name instanceof Result problem) {
                    return problem;
                }
                serverName = (String) name;
            }
            c.skip(length);
        }
        return new Result(Verdict.HELLO, serverName, null);
    }

    /** The one host_name of a server_name extension, or a malformed {@link Result}. */
    private static Object serverName(Cursor c) {
        int listLength = c.u16();
        if (c.broken() || listLength != c.remaining() || listLength == 0) {
            return Result.malformed("a server_name extension whose list length does not match");
        }
        int nameType = c.u8();
        int nameLength = c.u16();
        if (c.broken() || nameType != HOST_NAME || nameLength == 0 || nameLength != c.remaining()) {
            return Result.malformed("a server_name extension that is not exactly one host_name");
        }
        byte[] name = c.bytes(nameLength);
        for (byte x : name) {
            if (x <= 0x20 || x >= 0x7f) {
                return Result.malformed("a server name with a byte that is not printable ASCII");
            }
        }
        return new String(name, StandardCharsets.US_ASCII);
    }

    /** Reads big-endian fields from {@code b[from, to)}; past the end it reads zeros and says {@link #broken()}. */
    private static final class Cursor {
        private final byte[] b;
        private final int to;
        private int at;
        private boolean broken;

        Cursor(byte[] b, int from, int length) {
            this.b = b;
            this.at = from;
            this.to = from + length;
        }

        int u8() {
            if (at + 1 > to) {
                broken = true;
                at = to;
                return 0;
            }
            return b[at++] & 0xff;
        }

        int u16() {
            return (u8() << 8) | u8();
        }

        void skip(int n) {
            if (at + n > to) {
                broken = true;
                at = to;
            } else {
                at += n;
            }
        }

        byte[] bytes(int n) {
            byte[] out = new byte[Math.max(0, Math.min(n, to - at))];
            System.arraycopy(b, at, out, 0, out.length);
            skip(n);
            return out;
        }

        int position() {
            return at;
        }

        int remaining() {
            return to - at;
        }

        boolean broken() {
            return broken;
        }
    }
}
