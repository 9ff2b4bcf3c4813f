package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Reason;
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
}
