package org.cyverse.mesa.egress.proxy.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.tls.ClientHelloReader;
import org.cyverse.mesa.egress.tls.TlsRecords;

/**
 * The second ClientHello of an opaque tunnel. A TLS 1.3 server that wants another key share
 * answers the first hello with a HelloRetryRequest (RFC 8446 section 4.1.4), and the client sends
 * a second ClientHello; a server that does not compare the two (RFC 8446 only says it must be
 * "the same" but for listed changes) could take a server name there that the {@link SniCheck}
 * never saw, which would be domain fronting again. So after the first hello passed, the
 * server's first handshake message is read (not held: it is only looked at), and when it is a
 * HelloRetryRequest the client's next handshake message must be a well-formed ClientHello
 * naming the same server as the first; it is held until complete and judged, and refused
 * (audited 421 {@code host_mismatch}, both sides closed) otherwise. A client handshake record
 * before the server's hello has been seen is refused too: no TLS version sends one. Once the
 * server's hello is not a retry, or the second hello passed, both handlers leave the pipelines.
 * Confined to the tunnel's event loop (client and upstream share it).
 */
public final class HelloRetryCheck {

    /** The ServerHello random that marks a HelloRetryRequest: SHA-256 of "HelloRetryRequest" (RFC 8446 section 4.1.3). */
    private static final byte[] RETRY_RANDOM = hex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");
    private static final int RECORD_HEADER = TlsRecords.HEADER;
    private static final int HANDSHAKE = TlsRecords.HANDSHAKE;
    private static final int CHANGE_CIPHER_SPEC = TlsRecords.CHANGE_CIPHER_SPEC;
    private static final int SERVER_HELLO = TlsRecords.SERVER_HELLO;
    /** type (1), length (3), legacy_version (2), random (32). */
    private static final int HELLO_PREFIX = 38;
    /** Records the server may take to get {@link #HELLO_PREFIX} bytes of its hello out: real stacks take one. */
    private static final int MAX_SERVER_RECORDS = 4;

    private enum State { AWAITING_SERVER, RETRY, DONE }

    private final String firstName;
    /** Bytes of the client's first hello still to pass on unjudged (the SNI check judged them). */
    private int firstHelloLeft;
    private final String target;
    private final String profile;
    private final Consumer<Refusal> refuse;
    private State state = State.AWAITING_SERVER;
    private boolean refused;
    /** The handler on the client's side of the tunnel. */
    public final FromClient fromClient = new FromClient();
    /** The handler on the upstream's side of the tunnel. */
    public final FromServer fromServer = new FromServer();

    /**
     * @param firstName the server name of the first ClientHello, or {@code null} when it had none
     * @param firstHelloLength the bytes of the first ClientHello's records, which come first and pass unjudged
     * @param target the CONNECT target's host, for the refusal
     * @param refuse closes the tunnel with the refusal, audited
     */
    public HelloRetryCheck(String firstName, int firstHelloLength, String target, String profile, Consumer<Refusal> refuse) {
        this.firstName = firstName;
        this.firstHelloLeft = firstHelloLength;
        this.target = target;
        this.profile = profile;
        this.refuse = refuse;
    }

    private void fail(String detail) {
        state = State.DONE;
        refused = true;
        refuse.accept(Refusals.of(Reason.HOST_MISMATCH, target, profile, detail));
    }

    /** The client's bytes after its first hello: passed on record by record, a second hello held until judged. */
    final class FromClient extends ChannelInboundHandlerAdapter {
        private ChannelHandlerContext ctx;
        private ByteBuf held;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes) || state == State.DONE) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (firstHelloLeft > 0) {
                int n = Math.min(firstHelloLeft, bytes.readableBytes());
                firstHelloLeft -= n;
                if (n == bytes.readableBytes()) {
                    ctx.fireChannelRead(bytes);
                    return;
                }
                ctx.fireChannelRead(bytes.readRetainedSlice(n));
            }
            if (held == null) {
                held = ctx.alloc().buffer(bytes.readableBytes());
            }
            held.writeBytes(bytes);
            bytes.release();
            judge();
        }

        /** Passes on every complete record that needs no judging; holds a second hello until it is whole. */
        void judge() {
            if (held == null || ctx == null) {
                return;
            }
            int at = held.readerIndex();
            while (state != State.DONE && held.writerIndex() - at >= RECORD_HEADER) {
                int type = held.getUnsignedByte(at);
                int end = at + RECORD_HEADER + held.getUnsignedShort(at + 3);
                if (type == HANDSHAKE && state == State.AWAITING_SERVER) {
                    fail("a TLS handshake record from the client before the server's hello");
                    return;
                }
                if (type == HANDSHAKE) {
                    ClientHelloReader.Result second = ClientHelloReader.read(held.slice(at, held.writerIndex() - at));
                    if (second.verdict() == ClientHelloReader.Verdict.NEED_MORE
                            && held.readableBytes() <= ClientHelloReader.MAX_HELLO_BYTES) {
                        break;
                    }
                    if (second.verdict() != ClientHelloReader.Verdict.HELLO) {
                        fail("the second ClientHello (after a HelloRetryRequest) does not parse: " + second.problem());
                        return;
                    }
                    if (!Objects.equals(lower(second.serverName()), lower(firstName))) {
                        fail("the second ClientHello (after a HelloRetryRequest) names server " + second.serverName()
                                + ", the first " + firstName);
                        return;
                    }
                    state = State.DONE;
                    break;
                }
                if (held.writerIndex() < end) {
                    break; // a record not whole yet
                }
                at = end; // change_cipher_spec (sent before a second hello), an alert, early data: on as they are
            }
            if (state == State.DONE) {
                at = held.writerIndex();
            }
            if (at > held.readerIndex()) {
                // Copied out, so that what is held stays what is not passed on yet (a silent server cannot make it grow).
                ctx.fireChannelRead(held.readBytes(at - held.readerIndex())); // the relay reads on once written
                held.discardReadBytes();
            } else {
                ctx.read(); // nothing passed on: nobody else asks for more
            }
            if (state == State.DONE) {
                leave();
            }
        }

        void leave() {
            if (ctx != null && !ctx.isRemoved()) {
                ctx.pipeline().remove(this);
            }
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (held != null) {
                if (held.isReadable() && state == State.DONE && ctx.channel().isActive()) {
                    ctx.fireChannelRead(held.retain());
                }
                held.release();
                held = null;
            }
        }
    }

    /** The server's first bytes: looked at, never held, until its first handshake message says whether it is a retry. */
    final class FromServer extends ChannelInboundHandlerAdapter {
        private final byte[] prefix = new byte[HELLO_PREFIX];
        private int filled;
        private int records;
        /** Bytes of the current record still to come, and whether it is a handshake record; -1 before a header. */
        private int recordLeft = -1;
        private boolean recordIsHandshake;
        /** Whether the current record is a change_cipher_spec, looked past. */
        private boolean skipping;
        private final byte[] header = new byte[RECORD_HEADER];
        private int headerFilled;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf bytes && state == State.AWAITING_SERVER) {
                look(bytes, bytes.readerIndex(), bytes.writerIndex());
                if (refused) {
                    ReferenceCountUtil.release(msg);
                    return;
                }
                if (state != State.AWAITING_SERVER) {
                    ctx.pipeline().remove(this);
                    fromClient.judge(); // no retry: what the client sent meanwhile goes on, and the check leaves
                    if (state == State.DONE) {
                        fromClient.leave();
                    }
                }
            }
            ctx.fireChannelRead(msg);
        }

        private void look(ByteBuf in, int from, int to) {
            int i = from;
            while (i < to && state == State.AWAITING_SERVER) {
                if (recordLeft < 0) {
                    header[headerFilled++] = in.getByte(i++);
                    if (headerFilled == RECORD_HEADER) {
                        headerFilled = 0;
                        recordIsHandshake = (header[0] & 0xff) == HANDSHAKE;
                        recordLeft = (header[3] & 0xff) << 8 | header[4] & 0xff;
                        if ((header[0] & 0xff) == CHANGE_CIPHER_SPEC) {
                            skipping = true; // clients drop it unread (RFC 8446 section 5): it must not end the watch
                        } else if (!recordIsHandshake) {
                            state = State.DONE; // an alert (or application data) first: no retry is coming
                        } else if (++records > MAX_SERVER_RECORDS) {
                            fail("the server's hello came in more than " + MAX_SERVER_RECORDS + " records");
                        }
                    }
                    continue;
                }
                if (skipping) {
                    int n = Math.min(recordLeft, to - i);
                    i += n;
                    recordLeft -= n;
                    if (recordLeft == 0) {
                        recordLeft = -1;
                        skipping = false;
                        if (++records > MAX_SERVER_RECORDS) {
                            fail("the server's hello came after more than " + MAX_SERVER_RECORDS + " records");
                        }
                    }
                    continue;
                }
                int n = Math.min(Math.min(recordLeft, to - i), HELLO_PREFIX - filled);
                in.getBytes(i, prefix, filled, n);
                filled += n;
                i += n;
                recordLeft -= n;
                if (filled == HELLO_PREFIX) {
                    decide();
                } else if (recordLeft == 0) {
                    recordLeft = -1;
                }
            }
        }

        private void decide() {
            boolean retry = (prefix[0] & 0xff) == SERVER_HELLO;
            for (int k = 0; retry && k < RETRY_RANDOM.length; k++) {
                retry = prefix[6 + k] == RETRY_RANDOM[k];
            }
            state = retry ? State.RETRY : State.DONE;
        }
    }

    private static String lower(String name) {
        return name == null ? null : name.toLowerCase(Locale.ROOT);
    }

    private static byte[] hex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
