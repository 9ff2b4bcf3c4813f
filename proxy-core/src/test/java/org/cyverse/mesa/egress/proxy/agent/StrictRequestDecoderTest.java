package org.cyverse.mesa.egress.proxy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The strict decoder alone, through an EmbeddedChannel. */
class StrictRequestDecoderTest {

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    @Test
    void wellFormedRequestsPassOneAfterAnother() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        channel.writeInbound(bytes("\r\nPOST http://a.example/x HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3\r\n\r\nabc"
                + "GET http://a.example/y HTTP/1.1\r\nHost: a.example\r\nX-Obs-Text: caf\u00e9\r\n\r\n"));
        HttpRequest first = channel.readInbound();
        assertEquals("http://a.example/x", first.uri());
        HttpContent body = channel.readInbound();
        assertEquals("abc", body.content().toString(StandardCharsets.US_ASCII));
        assertInstanceOf(LastHttpContent.class, body);
        body.release();
        HttpRequest second = channel.readInbound();
        assertEquals("http://a.example/y", second.uri());
        LastHttpContent end = channel.readInbound();
        end.release();
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aHeadSplitAcrossManyReadsIsReassembled() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        String head = "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n\r\n";
        for (char c : head.toCharArray()) {
            channel.writeInbound(bytes(String.valueOf(c)));
        }
        HttpRequest request = channel.readInbound();
        assertEquals("*/*", request.headers().get("Accept"));
        ((LastHttpContent) channel.readInbound()).release();
        assertFalse(channel.finishAndReleaseAll());
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("bare LF", "GET http://a/ HTTP/1.1\nHost: a\n\n"),
                Arguments.of("obs-fold", "GET http://a/ HTTP/1.1\r\nX: 1\r\n 2\r\n\r\n"),
                Arguments.of("tab fold", "GET http://a/ HTTP/1.1\r\nX: 1\r\n\t2\r\n\r\n"),
                Arguments.of("space before colon", "GET http://a/ HTTP/1.1\r\nHost : a\r\n\r\n"),
                Arguments.of("DEL in value", "GET http://a/ HTTP/1.1\r\nX: a\u007fb\r\n\r\n"),
                Arguments.of("bare CR", "GET http://a/ HTTP/1.1\rHost: a\r\n\r\n"),
                Arguments.of("NUL in the request line", "GET http://a/\u0000 HTTP/1.1\r\nHost: a\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedHeadsBecomeRejections(String name, String head) {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        channel.writeInbound(bytes(head));
        RejectedHead rejected = channel.readInbound();
        assertEquals(Reason.BAD_REQUEST, rejected.reason(), name);
        assertNull(channel.readInbound(), "nothing is decoded after a rejection");
        channel.writeInbound(bytes("GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertNull(channel.readInbound(), "the connection decodes nothing more");
        assertFalse(channel.finishAndReleaseAll());
    }

    static Stream<Arguments> ambiguouslyFramed() {
        return Stream.of(
                Arguments.of("Content-Length and chunked", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
                Arguments.of("chunked and Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc"),
                Arguments.of("gzip and Content-Length", "Transfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc"),
                Arguments.of("a coding other than chunked", "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                Arguments.of("two Transfer-Encoding fields", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                Arguments.of("differing Content-Length values", "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"));
    }

    /** Every smuggling shape of SPEC.md step 1 is refused here, in the decoder, once. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("ambiguouslyFramed")
    void ambiguousFramingBecomesARejection(String name, String rest) {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        channel.writeInbound(bytes("POST http://a/ HTTP/1.1\r\nHost: a\r\n" + rest));
        RejectedHead rejected = channel.readInbound();
        assertEquals(Reason.BAD_REQUEST, rejected.reason(), name);
        assertEquals(Refusals.Problem.AMBIGUOUS_FRAMING, rejected.problem(), name);
        assertNull(channel.readInbound(), "nothing of the body is decoded");
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void anOversizedHeadIsRejectedAsTooLarge() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(1024));
        channel.writeInbound(bytes("GET http://a/ HTTP/1.1\r\nX: " + "a".repeat(2000)));
        RejectedHead rejected = channel.readInbound();
        assertEquals(Reason.HEADERS_TOO_LARGE, rejected.reason());
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void bytesAfterAConnectAreLeftForTheTunnel() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        channel.writeInbound(bytes("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n\u0016\u0003\u0001"));
        HttpRequest connect = channel.readInbound();
        assertEquals("a.example:443", connect.uri());
        ((LastHttpContent) channel.readInbound()).release();
        assertNull(channel.readInbound());
        channel.pipeline().removeFirst(); // as the tunnel set-up does: the held bytes move on
        ByteBuf held = channel.readInbound();
        assertEquals(3, held.readableBytes(), held.toString(StandardCharsets.ISO_8859_1));
        assertEquals(0x16, held.getByte(held.readerIndex()));
        held.release();
        assertFalse(channel.finishAndReleaseAll());
    }

    // ---- chunked bodies and their trailer sections (ChunkedFraming) ----

    private static final String CHUNKED = "POST http://a.example/x HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: chunked\r\n\r\n";

    /** The body's parts as the decoder gave them: data, then the end (its trailers) or the failure. */
    private static String body(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        Object o;
        while ((o = channel.readInbound()) != null) {
            if (o instanceof HttpRequest request) {
                out.append("[head ").append(request.uri()).append("]");
            }
            if (o instanceof HttpContent c) {
                out.append(c.content().toString(StandardCharsets.ISO_8859_1));
                if (c.decoderResult().isFailure()) {
                    out.append("[failed ").append(ChunkedFraming.problemOf(c.decoderResult().cause())).append(": ")
                            .append(c.decoderResult().cause().getMessage()).append("]");
                } else if (c instanceof LastHttpContent last) {
                    out.append("[end").append(last.trailingHeaders().isEmpty() ? "" : " " + last.trailingHeaders().entries()).append("]");
                }
                c.release();
            }
        }
        return out.toString();
    }

    @Test
    void aChunkedBodyWithTrailersThenAPipelinedRequestPassByteByByte() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        String wire = CHUNKED + "5;name=\"v\"\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\nGET http://a.example/y HTTP/1.1\r\nHost: a.example\r\n\r\n";
        for (char c : wire.toCharArray()) {
            channel.writeInbound(bytes(String.valueOf(c)));
        }
        assertEquals("[head http://a.example/x]hello[end [X-Checksum=abc]][head http://a.example/y][end]", body(channel));
        assertFalse(channel.finishAndReleaseAll());
    }

    static Stream<Arguments> refusedChunkedBodies() {
        return Stream.of(
                Arguments.of("0\r\nHost: b.example\r\n\r\n", "MALFORMED_TRAILERS: trailer field host is not allowed"),
                Arguments.of("0\r\nContent-Length: 9\r\n\r\n", "MALFORMED_TRAILERS: trailer field content-length is not allowed"),
                Arguments.of("0\r\nProxy-Authorization: x\r\n\r\n", "MALFORMED_TRAILERS: trailer field proxy-authorization is not allowed"),
                Arguments.of("0\r\nProxy-Anything: x\r\n\r\n", "MALFORMED_TRAILERS: trailer field proxy-* is not allowed"),
                Arguments.of("0\r\nX-A: 1\r\n folded\r\n\r\n", "MALFORMED_TRAILERS: an obs-fold continuation line"),
                Arguments.of("0\r\nX-A: 1\n\r\n", "MALFORMED_TRAILERS: a control byte"),
                Arguments.of("0\r\nX-A : 1\r\n\r\n", "MALFORMED_TRAILERS: whitespace in or after a trailer field name"),
                Arguments.of("0\r\n: 1\r\n\r\n", "MALFORMED_TRAILERS: a trailer field with an empty name"),
                Arguments.of("0\r\nX-A: 1\r\n\rX", "MALFORMED_TRAILERS: the trailer section ends in a bare CR"),
                Arguments.of("5\r\nhelloXX\r\n0\r\n\r\n", "MALFORMED_BODY: chunk data longer than its size"),
                Arguments.of("5\nhello\r\n0\r\n\r\n", "MALFORMED_BODY: a chunk size followed by 0xa"),
                Arguments.of("5\r\nhello\r\n00000000000000001\r\nx\r\n0\r\n\r\n", "MALFORMED_BODY: a chunk size over 16 hex digits"),
                Arguments.of(";x\r\n", "MALFORMED_BODY: a chunk-size line that does not start with a hex number"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refusedChunkedBodies")
    void aChunkedBodyTheStrictCheckRefusesEndsInAFailureAndNothingAfterIt(String body, String expected) {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(8192));
        channel.writeInbound(bytes(CHUNKED + body + "GET http://a.example/next HTTP/1.1\r\nHost: a.example\r\n\r\n"));
        String got = body(channel);
        assertTrue(got.startsWith("[head http://a.example/x]"), got);
        assertTrue(got.contains("[failed " + expected), got);
        assertFalse(got.contains("[end"), "the body never ends cleanly: " + got);
        assertFalse(got.contains("/next"), "nothing after a refused body is read: " + got);
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aTrailerSectionOverTheHeadLimitIsRefused() {
        EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(256));
        channel.writeInbound(bytes(CHUNKED + "0\r\nX-Big: " + "a".repeat(300) + "\r\n\r\n"));
        assertTrue(body(channel).contains("[failed MALFORMED_TRAILERS: a trailer section over limits.max_header_bytes (256)"));
        assertFalse(channel.finishAndReleaseAll());
    }
}
