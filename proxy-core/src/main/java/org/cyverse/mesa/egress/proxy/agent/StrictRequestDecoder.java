package org.cyverse.mesa.egress.proxy.agent;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.Locale;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;
import org.cyverse.mesa.egress.proxy.websocket.WebSocketUpgrade;

/**
 * Netty's request decoder behind a strict gate, and the one place of SPEC.md step 1: every
 * request head is first checked byte by byte by {@link RequestHeadScanner} (bare LF, obs-fold,
 * control bytes, size); what Netty then parses is refused, not repaired, when its framing is
 * ambiguous ({@link #framingProblem}: Transfer-Encoding with Content-Length, a coding other than a
 * single chunked; RFC 9112 sections 6.1 and 11.2: a proxy that repairs it can disagree with the
 * upstream) or when Netty itself failed (differing Content-Length values, a head too large). A
 * refused head comes out as a {@link RejectedHead}, never as a request.
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
    private final int maxHeaderBytes;
    /** The strict check of the current request's chunked body, while it lasts; else {@code null}. */
    private ChunkedFraming chunked;
    /** Bytes past the reader index that {@link #chunked} has checked already. */
    private int checkedAhead;
    private Phase phase = Phase.AWAITING_HEAD;
    /** Whether the current request is a CONNECT or a WebSocket upgrade: decoding stops after its head and (empty) body. */
    private boolean connect;

    /** Where the decoder is in the connection's input. */
    private enum Phase {
        /** Waiting for a request head, nothing of it read yet. */
        AWAITING_HEAD,
        /** A head has begun ({@link StrictRequestDecoder#HEAD_STARTED} fired), not yet whole. */
        IN_HEAD,
        /** The head was scanned whole: Netty decodes it and its body. */
        IN_BODY,
        /** After a CONNECT or an upgrade: decoding stopped, the bytes that follow are kept for the tunnel. */
        HANDED_OVER,
        /** Stopped by a refusal: what the client still sends is dropped. */
        DISCARDING
    }

    StrictRequestDecoder(int maxHeaderBytes) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(maxHeaderBytes)
                .setMaxHeaderSize(maxHeaderBytes)
                .setMaxChunkSize(64 * 1024)
                .setValidateHeaders(true)
                .setStrictLineParsing(true)
                .setAllowDuplicateContentLengths(false));
        this.scanner = new RequestHeadScanner(maxHeaderBytes);
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (phase == Phase.HANDED_OVER || phase == Phase.DISCARDING) {
            if (phase == Phase.DISCARDING) {
                // After a refusal what the client still sends (while the connection lingers) is
                // dropped, not piled up: only a CONNECT's bytes are kept, for the tunnel.
                in.skipBytes(in.readableBytes());
            }
            return;
        }
        int headEnd = -1;
        if (phase == Phase.AWAITING_HEAD || phase == Phase.IN_HEAD) {
            if (phase == Phase.AWAITING_HEAD && in.isReadable()) {
                phase = Phase.IN_HEAD;
                ctx.fireUserEventTriggered(HEAD_STARTED);
            }
            switch (scanner.scan(in)) {
                case INCOMPLETE:
                    return;
                case INVALID:
                    stop(in, out, new RejectedHead(Reason.BAD_REQUEST, Refusals.Problem.MALFORMED_HEAD, scanner.problem(), null));
                    return;
                case TOO_LARGE:
                    stop(in, out, new RejectedHead(Reason.HEADERS_TOO_LARGE, null, "the request head exceeds limits.max_header_bytes", null));
                    return;
                case COMPLETE:
                    phase = Phase.IN_BODY;
                    headEnd = in.readerIndex() + scanner.headLength();
                    scanner.reset();
                    break;
                default:
                    throw new IllegalStateException();
            }
        }
        int before = out.size();
        int unchecked = in.readerIndex() + checkedAhead; // taken before Netty consumes
        super.decode(ctx, in, out);
        checkChunked(in, out, before, headEnd, unchecked);
        vet(in, out, before);
    }

    /**
     * Runs the strict check of a chunked body ({@link ChunkedFraming}) over every byte that has
     * arrived, before Netty's output of this round is judged: a body it refuses ends in a failed
     * {@link LastHttpContent} in place of whatever Netty made of the rest, so that trailer fields it
     * refused never reach the exchange. A chunked request starts the check where its head ended;
     * otherwise it goes on from {@code unchecked}, the first byte it has not seen (an index taken
     * before Netty consumed this round's bytes).
     */
    private void checkChunked(ByteBuf in, List<Object> out, int before, int headEnd, int unchecked) {
        int from = unchecked;
        int bodyFrom = before; // where this body's parts start in out
        for (int i = before; i < out.size(); i++) {
            if (out.get(i) instanceof HttpRequest request && !request.decoderResult().isFailure()
                    && HttpUtil.isTransferEncodingChunked(request) && framingProblem(request.headers()) == null) {
                if (headEnd < 0) {
                    throw new IllegalStateException("a chunked request head decoded in a later round than it was scanned");
                }
                chunked = new ChunkedFraming(maxHeaderBytes);
                from = headEnd;
                bodyFrom = i + 1;
            }
        }
        if (chunked == null) {
            return;
        }
        ChunkedFraming.Result result = chunked.feed(in, from, in.writerIndex());
        checkedAhead = in.writerIndex() - in.readerIndex();
        if (result == ChunkedFraming.Result.DONE) {
            chunked = null; // what follows is the next request's head
            checkedAhead = 0;
        } else if (result == ChunkedFraming.Result.INVALID) {
            // The data before the refused part may go; the body's end, and anything Netty read past it, may not.
            int end = bodyFrom;
            while (end < out.size() && !(out.get(end) instanceof LastHttpContent)) {
                end++;
            }
            while (out.size() > end) {
                ReferenceCountUtil.release(out.remove(out.size() - 1));
            }
            DefaultLastHttpContent failed = new DefaultLastHttpContent();
            failed.setDecoderResult(DecoderResult.failure(chunked.problem()));
            out.add(failed);
            chunked = null;
            checkedAhead = 0;
        }
    }

    /**
     * Judges what Netty decoded into {@code out} from index {@code before}: a refused head becomes a
     * {@link RejectedHead} and nothing after it is kept; after a body Netty could not frame, or a
     * CONNECT, decoding stops.
     */
    private void vet(ByteBuf in, List<Object> out, int before) {
        for (int i = before; i < out.size(); i++) {
            Object o = out.get(i);
            if (o instanceof HttpRequest) {
                HttpRequest request = (HttpRequest) o;
                RejectedHead rejected = rejection(request);
                if (rejected != null) {
                    // Nothing after a refused head can be framed: drop what was decoded of it.
                    for (int j = out.size() - 1; j > i; j--) {
                        ReferenceCountUtil.release(out.remove(j));
                    }
                    out.set(i, rejected);
                    ReferenceCountUtil.release(request);
                    phase = Phase.DISCARDING;
                    in.skipBytes(in.readableBytes());
                    return;
                }
                // After a CONNECT or a WebSocket upgrade the bytes are not HTTP (or not yet known to be).
                connect = HttpMethod.CONNECT.equals(request.method()) || WebSocketUpgrade.requested(request);
            }
            if (o instanceof HttpContent && ((HttpContent) o).decoderResult().isFailure()) {
                // The client handler abandons the request upstream and answers 400.
                phase = Phase.DISCARDING;
            }
            if (o instanceof LastHttpContent && phase != Phase.HANDED_OVER && phase != Phase.DISCARDING) {
                phase = connect ? Phase.HANDED_OVER : Phase.AWAITING_HEAD; // once stopped, it stays stopped
            }
        }
    }

    private static RejectedHead rejection(HttpRequest request) {
        String method = request.method().name();
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongFrameException) {
                return new RejectedHead(Reason.HEADERS_TOO_LARGE, null, null, method);
            }
            String message = String.valueOf(cause.getMessage());
            HttpHeaders h = request.headers();
            boolean framing = h.contains(HttpHeaderNames.TRANSFER_ENCODING) || h.getAll(HttpHeaderNames.CONTENT_LENGTH).size() > 1
                    || message.toLowerCase(Locale.ROOT).contains("content-length");
            return new RejectedHead(Reason.BAD_REQUEST, framing ? Refusals.Problem.AMBIGUOUS_FRAMING : Refusals.Problem.MALFORMED_HEAD,
                    message, method);
        }
        String problem = framingProblem(request.headers());
        return problem == null ? WebSocketUpgrade.rejection(request) : new RejectedHead(Reason.BAD_REQUEST, Refusals.Problem.AMBIGUOUS_FRAMING, problem, method);
    }

    /** Transfer-Encoding together with Content-Length, or a coding other than a single "chunked"; else {@code null}. */
    static String framingProblem(HttpHeaders headers) {
        if (!headers.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return null;
        }
        if (headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            return "both Transfer-Encoding and Content-Length";
        }
        List<String> codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (codings.size() != 1 || !codings.get(0).trim().equalsIgnoreCase("chunked")) {
            return "Transfer-Encoding other than a single \"chunked\"";
        }
        return null;
    }

    /** The connection closed: what Netty makes of the rest (a body cut short) is judged like the rest. */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (phase == Phase.IN_BODY) {
            int before = out.size();
            super.decodeLast(ctx, in, out);
            vet(in, out, before);
        }
    }

    /** Netty would drop Content-Length and read the body chunked; both stay, and {@link #framingProblem} refuses the request. */
    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        // Left as it came: the check after decoding sees both fields.
    }

    private void stop(ByteBuf in, List<Object> out, RejectedHead rejected) {
        phase = Phase.DISCARDING;
        in.skipBytes(in.readableBytes());
        out.add(rejected);
    }
}
