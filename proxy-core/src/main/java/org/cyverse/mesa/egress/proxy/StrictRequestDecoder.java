package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * Netty's request decoder behind a strict gate: every request head is first checked byte by byte
 * by {@link RequestHeadScanner} (bare LF, obs-fold, control bytes, size), and a request with both
 * Transfer-Encoding and Content-Length is refused rather than repaired (RFC 9112 section 6.1
 * allows either; a proxy that repairs it can disagree with the upstream).
 *
 * <p>After a refused head or a CONNECT, it stops decoding: the bytes that follow belong to a
 * tunnel (handed on when this handler is removed) or to nobody.
 */
final class StrictRequestDecoder extends HttpRequestDecoder {

    /** Fired once the first byte of a request head has arrived (starts the header timeout). */
    static final Object HEAD_STARTED = new Object() {
        @Override
        public String toString() {
            return "HEAD_STARTED";
        }
    };

    private final RequestHeadScanner scanner;
    private boolean expectHead = true;
    private boolean headStartedFired;
    private boolean connect;
    private boolean stopped;

    StrictRequestDecoder(int maxHeaderBytes) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(maxHeaderBytes)
                .setMaxHeaderSize(maxHeaderBytes)
                .setMaxChunkSize(64 * 1024)
                .setValidateHeaders(true)
                .setStrictLineParsing(true)
                .setAllowDuplicateContentLengths(false));
        this.scanner = new RequestHeadScanner(maxHeaderBytes);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (stopped) {
            return;
        }
        if (expectHead) {
            if (!headStartedFired && in.isReadable()) {
                headStartedFired = true;
                ctx.fireUserEventTriggered(HEAD_STARTED);
            }
            switch (scanner.scan(in)) {
                case INCOMPLETE:
                    return;
                case INVALID:
                    stop(in, out, new RejectedHead(Reason.BAD_REQUEST, scanner.problem()));
                    return;
                case TOO_LARGE:
                    stop(in, out, new RejectedHead(Reason.HEADERS_TOO_LARGE, "the request head exceeds limits.max_header_bytes"));
                    return;
                case COMPLETE:
                    expectHead = false;
                    scanner.reset();
                    break;
                default:
                    throw new IllegalStateException();
            }
        }
        int before = out.size();
        super.decode(ctx, in, out);
        for (int i = before; i < out.size(); i++) {
            Object o = out.get(i);
            if (o instanceof HttpRequest) {
                HttpRequest request = (HttpRequest) o;
                connect = HttpMethod.CONNECT.equals(request.method());
                if (request.decoderResult().isFailure()) {
                    stopped = true;
                }
            }
            if (o instanceof HttpContent && ((HttpContent) o).decoderResult().isFailure()) {
                stopped = true;
            }
            if (o instanceof LastHttpContent) {
                expectHead = true;
                headStartedFired = false;
                if (connect) {
                    stopped = true;
                }
            }
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (!stopped && !expectHead) {
            super.decodeLast(ctx, in, out);
        }
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        throw new IllegalArgumentException("both Transfer-Encoding and Content-Length");
    }

    private void stop(ByteBuf in, List<Object> out, RejectedHead rejected) {
        stopped = true;
        in.skipBytes(in.readableBytes());
        out.add(rejected);
    }
}
