package org.cyverse.mesa.egress.proxy.body;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;
import org.junit.jupiter.api.Test;

/** What the gate holds costs what it counts, and what it lets go is the body as it came, trailers dropped. */
class RequestBodyGateTest {

    private static RequestBodyGate gate() throws Exception {
        ScanPlan plan = new ScanPlan.Builder().add("llm", Finding.Kind.SECRET, "sk-llm-REAL-7c1d9e2f4a6b8c0d").build();
        return RequestBodyGate.of(List.of(plan), null, Map.of(), null, null, false, 1 << 20, (rule, place) -> { }, List.of());
    }

    @Test
    void tinyChunksAreCopiedAndPinNothing() throws Exception {
        ByteBuf cumulation = Unpooled.buffer(100_000);
        for (int i = 0; i < 100_000; i++) {
            cumulation.writeByte('a' + i % 26);
        }
        RequestBodyGate gate = gate();
        for (int i = 0; i < 100_000; i++) {
            // As Netty's decoder hands them over: retained slices of one buffer.
            HttpContent chunk = i == 99_999 ? new DefaultLastHttpContent(cumulation.retainedSlice(i, 1))
                    : new DefaultHttpContent(cumulation.retainedSlice(i, 1));
            assertEquals(null, gate.inspect(chunk));
            gate.hold(chunk);
        }
        assertEquals(1, cumulation.refCnt(), "no held chunk pins the decoder's buffer");
        assertTrue(gate.holdComplete());
        List<HttpContent> out = gate.release();
        assertTrue(out.size() <= 100_000 / RequestBodyGate.PAGE + 1, out.size() + " chunks");
        assertTrue(out.get(out.size() - 1) instanceof LastHttpContent);
        StringBuilder body = new StringBuilder();
        for (HttpContent c : out) {
            body.append(c.content().toString(StandardCharsets.US_ASCII));
            c.release();
        }
        assertEquals(cumulation.toString(StandardCharsets.US_ASCII), body.toString());
        cumulation.release();
        gate.close();
    }

    @Test
    void trailersAreDropped() throws Exception {
        RequestBodyGate gate = gate();
        DefaultLastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("tail", StandardCharsets.US_ASCII));
        last.trailingHeaders().add("X-Key", "anything");
        HttpContent sent = gate.outgoing(last);
        assertTrue(((LastHttpContent) sent).trailingHeaders().isEmpty());
        assertEquals("tail", sent.content().toString(StandardCharsets.US_ASCII));
        sent.release();
        assertEquals(0, last.refCnt());
        gate.close();
    }
}
