package org.cyverse.mesa.egress.proxy.body;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The wire a client reads after {@link ResponseLengthHold}: a length when the body fits, chunks when it does not. */
class ResponseLengthHoldTest {

    private final HoldBudget budget = new HoldBudget();

    private static HttpResponse chunkedHead() {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
        return head;
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    /** Everything the encoder wrote, as text. */
    private static String wire(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        for (Object o = channel.readOutbound(); o != null; o = channel.readOutbound()) {
            ByteBuf b = (ByteBuf) o;
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return out.toString();
    }

    @Test
    void aBodyWithinTheHoldLeavesWithItsLengthInOneGo() {
        EmbeddedChannel channel = new EmbeddedChannel(new HttpResponseEncoder(), new ResponseLengthHold(budget));
        channel.writeOutbound(new ResponseLengthHold.Held(chunkedHead(), 100, 1000));
        channel.writeOutbound(new DefaultHttpContent(text("hello ")));
        assertEquals("", wire(channel), "nothing leaves until the body is complete");
        assertEquals(6, budget.held());
        channel.writeOutbound(new DefaultLastHttpContent(text("world")));
        String wire = wire(channel);
        assertTrue(wire.startsWith("HTTP/1.1 200 OK\r\n"), wire);
        assertTrue(wire.contains("content-length: 11\r\n"), wire);
        assertFalse(wire.toLowerCase().contains("transfer-encoding"), wire);
        assertTrue(wire.endsWith("\r\n\r\nhello world"), wire);
        assertEquals(0, budget.held(), "the hold's bytes are given back");
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aBodyPastTheHoldOrEndingInTrailersLeavesChunkedFromWhereItIs() {
        EmbeddedChannel channel = new EmbeddedChannel(new HttpResponseEncoder(), new ResponseLengthHold(budget));
        channel.writeOutbound(new ResponseLengthHold.Held(chunkedHead(), 8, 1000));
        channel.writeOutbound(new DefaultHttpContent(text("hello ")));
        channel.writeOutbound(new DefaultHttpContent(text("world")));
        String wire = wire(channel);
        assertTrue(wire.contains("transfer-encoding: chunked\r\n") && wire.endsWith("6\r\nhello \r\n5\r\nworld\r\n"), wire);
        channel.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
        assertEquals("0\r\n\r\n", wire(channel));

        channel.writeOutbound(new ResponseLengthHold.Held(chunkedHead(), 100, 1000));
        channel.writeOutbound(new DefaultHttpContent(text("a")));
        LastHttpContent withTrailer = new DefaultLastHttpContent(text("b"));
        withTrailer.trailingHeaders().set("x-checksum", "1");
        channel.writeOutbound(withTrailer);
        wire = wire(channel);
        assertTrue(wire.contains("transfer-encoding: chunked") && wire.endsWith("1\r\na\r\n1\r\nb\r\n0\r\nx-checksum: 1\r\n\r\n"), wire);
        assertEquals(0, budget.held());
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void theSharedBudgetBoundsWhatIsHeldAndACloseReleasesIt() {
        budget.take(995, 1000); // other connections hold nearly all of it
        EmbeddedChannel channel = new EmbeddedChannel(new HttpResponseEncoder(), new ResponseLengthHold(budget));
        channel.writeOutbound(new ResponseLengthHold.Held(chunkedHead(), 100, 1000));
        channel.writeOutbound(new DefaultHttpContent(text("0123456789")));
        assertTrue(wire(channel).endsWith("a\r\n0123456789\r\n"), "no room in the budget: sent chunked");
        budget.give(995);

        channel.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
        wire(channel);
        channel.writeOutbound(new ResponseLengthHold.Held(chunkedHead(), 100, 1000));
        channel.writeOutbound(new DefaultHttpContent(text("cut")));
        assertEquals(3, budget.held());
        channel.close();
        assertEquals(0, budget.held());
        assertNull(channel.readOutbound(), "a response cut while held sends nothing");
        assertFalse(channel.finishAndReleaseAll());
    }
}
