package org.cyverse.mesa.egress.proxy.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.StreamReplacer;
import org.cyverse.mesa.egress.injector.github.BranchRule;
import org.cyverse.mesa.egress.injector.github.PushCheck;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.Finding;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;
import org.cyverse.mesa.egress.proxy.http.RejectedHead;
import org.cyverse.mesa.egress.tls.ClientHelloReader;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzz targets (Jazzer) for what reads attacker-controlled bytes first: the
 * request decoder (head scanner and chunked framing), the ClientHello reader, the secret
 * scanners, and a git push's command list and pack. In every build each target replays its committed corpus
 * ({@code src/test/resources/.../ParserFuzzTestInputs/<target>/}); {@code bin/fuzz} fuzzes each
 * for a while (README "Fuzzing"). Each target asserts a property a user relies on, not only
 * "does not throw".
 */
class ParserFuzzTest {

    /**
     * Jazzer replays a target's committed inputs from {@code ParserFuzzTestInputs/<target>/} beside
     * this class, by its package: a move of the class without them replays nothing, silently.
     */
    @Test
    void everyTargetsCommittedInputsAreBesideThisClass() {
        List<String> targets = new ArrayList<>();
        for (java.lang.reflect.Method m : ParserFuzzTest.class.getDeclaredMethods()) {
            if (m.isAnnotationPresent(FuzzTest.class)) {
                targets.add(m.getName());
                assertNotNull(ParserFuzzTest.class.getResource("ParserFuzzTestInputs/" + m.getName() + "/"),
                        m.getName() + ": no committed inputs beside " + ParserFuzzTest.class.getName());
            }
        }
        assertEquals(5, targets.size(), "the five targets: " + targets);
    }


    /**
     * The strict decoder, fed in arbitrary pieces, never throws or leaks, and a body it lets
     * end cleanly is the body Netty alone reads from the same bytes: the proxy and an upstream
     * that parses like Netty agree on where a request ends (no smuggling through the gap).
     */
    @FuzzTest(maxDuration = "30s")
    void requestDecoder(FuzzedDataProvider data) {
        int[] pieces = new int[data.consumeInt(0, 8)]; // the sizes the bytes arrive in, taken in turn
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = data.consumeInt(1, 64);
        }
        byte[] wire = data.consumeRemainingAsBytes();
        List<String> strict = decode(new EmbeddedChannel(new StrictRequestDecoder(4096)), wire, pieces);
        int refused = strict.indexOf("FAILED");
        List<String> lenient = decode(new EmbeddedChannel(new HttpRequestDecoder()), wire, new int[0]);
        // Up to the first refusal, every request the strict decoder let through ended where Netty's did.
        int agreed = refused < 0 ? strict.size() : refused;
        for (int i = 0; i < agreed && i < lenient.size(); i++) {
            if (strict.get(i).startsWith("END ")) {
                assertEquals(lenient.get(i), strict.get(i), "a body both decoders ended cleanly reads the same");
            }
        }
    }

    /**
     * What a decoder made of {@code wire}, arriving in pieces of the sizes {@code pieces} gives in
     * turn (all at once when empty): heads, body ends (with the body's bytes), failures.
     */
    private static List<String> decode(EmbeddedChannel channel, byte[] wire, int[] pieces) {
        List<String> out = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            for (int at = 0, k = 0; at < wire.length; k++) {
                int step = pieces.length == 0 ? wire.length : pieces[k % pieces.length];
                channel.writeInbound(Unpooled.wrappedBuffer(wire, at, Math.min(step, wire.length - at)));
                at += step;
                Object o;
                while ((o = channel.readInbound()) != null) {
                    try {
                        if (o instanceof RejectedHead) {
                            out.add("FAILED");
                        } else if (o instanceof HttpRequest request) {
                            out.add(request.decoderResult().isFailure() ? "FAILED" : "HEAD " + request.method() + " " + request.uri());
                            body.reset();
                        }
                        if (o instanceof HttpContent content) {
                            if (content.decoderResult().isFailure()) {
                                out.add("FAILED");
                            } else {
                                ByteBuf bytes = content.content();
                                byte[] copy = new byte[bytes.readableBytes()];
                                bytes.getBytes(bytes.readerIndex(), copy);
                                body.writeBytes(copy);
                                if (content instanceof LastHttpContent last) {
                                    out.add("END " + body.toString(StandardCharsets.ISO_8859_1) + " " + last.trailingHeaders().entries());
                                }
                            }
                        }
                    } finally {
                        ReferenceCountUtil.release(o);
                    }
                }
            }
        } catch (io.netty.handler.codec.DecoderException e) {
            if (e.getCause() instanceof IllegalStateException broken) {
                throw broken; // the strict decoder's own bookkeeping went wrong: a finding
            }
            out.add("FAILED"); // Netty's own decoder may throw on input the strict one refuses first
        } finally {
            channel.finishAndReleaseAll();
        }
        return out;
    }

    /**
     * The ClientHello reader never throws, never moves the buffer, and a hello it accepts is
     * accepted the same from a copy (it reads nothing outside the bytes), fits in them, and names a
     * printable server.
     */
    @FuzzTest(maxDuration = "30s")
    void clientHello(byte[] input) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        ClientHelloReader.Result result = ClientHelloReader.read(in);
        assertEquals(0, in.readerIndex());
        assertNotNull(result.verdict());
        if (result.verdict() == ClientHelloReader.Verdict.HELLO) {
            assertTrue(result.length() > 0 && result.length() <= input.length, "the hello fits in its bytes");
            ClientHelloReader.Result again = ClientHelloReader.read(Unpooled.wrappedBuffer(java.util.Arrays.copyOf(input, result.length())));
            assertEquals(result, again, "the hello alone reads the same");
            if (result.serverName() != null) {
                assertTrue(result.serverName().chars().allMatch(c -> c > 0x20 && c < 0x7f), "a printable server name");
            }
        }
    }

    /**
     * The response scrubber gives what a whole-buffer replace gives, wherever the body is cut
     * (a secret split across chunks is replaced all the same, and nothing else changes).
     */
    @FuzzTest(maxDuration = "30s")
    void responseScrubber(FuzzedDataProvider data) {
        Map<byte[], byte[]> patterns = new LinkedHashMap<>();
        int count = data.consumeInt(1, 4);
        for (int i = 0; i < count; i++) {
            byte[] pattern = data.consumeBytes(data.consumeInt(1, 12));
            if (pattern.length > 0) {
                patterns.put(pattern, data.consumeBytes(data.consumeInt(0, 6)));
            }
        }
        if (patterns.isEmpty()) {
            return;
        }
        int cut = data.consumeInt(1, 16);
        byte[] body = data.consumeRemainingAsBytes();
        StreamReplacer replacer = new StreamReplacer(patterns);
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += cut) {
            streamed.writeBytes(replacer.feed(body, at, Math.min(cut, body.length - at)));
        }
        streamed.writeBytes(replacer.finish());
        assertArrayEquals(wholeReplace(body, patterns), streamed.toByteArray());
    }

    /** Leftmost match first, the longest pattern there, no overlaps, replacements not read again. */
    private static byte[] wholeReplace(byte[] body, Map<byte[], byte[]> patterns) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < body.length) {
            byte[] best = null;
            for (byte[] p : patterns.keySet()) {
                if (i + p.length <= body.length && java.util.Arrays.equals(body, i, i + p.length, p, 0, p.length)
                        && (best == null || p.length > best.length)) {
                    best = p;
                }
            }
            if (best != null) {
                out.writeBytes(patterns.get(best));
                i += best.length;
            } else {
                out.write(body[i++]);
            }
        }
        return out.toByteArray();
    }

    /**
     * The body scanner finds a secret planted anywhere in arbitrary bytes, however the body is
     * cut, and never throws on the bytes around it.
     */
    @FuzzTest(maxDuration = "30s")
    void bodyScanner(FuzzedDataProvider data) {
        String secret = "sk-fuzz-" + data.consumeAsciiString(24).replaceAll("[^A-Za-z0-9]", "x") + "-end";
        int cut = data.consumeInt(1, 64);
        byte[] around = data.consumeRemainingAsBytes();
        int at = around.length / 2;
        byte[] body = new byte[around.length + secret.length()];
        System.arraycopy(around, 0, body, 0, at);
        System.arraycopy(secret.getBytes(StandardCharsets.US_ASCII), 0, body, at, secret.length());
        System.arraycopy(around, at, body, at + secret.length(), around.length - at);
        BodyScanner scanner = new ScanPlan.Builder().add("fuzz", Finding.Kind.SECRET, secret).build().newScanner();
        BodyScanner.Hit hit = null;
        for (int from = 0; from < body.length && hit == null; from += cut) {
            hit = scanner.feed(body, from, Math.min(cut, body.length - from));
        }
        if (hit == null) {
            hit = scanner.finish();
        }
        assertNotNull(hit, "the planted secret is found");
        assertEquals("fuzz", hit.finding().credential());
        assertFalse(hit.describe().contains(secret), "a finding never quotes the value");
    }

    /**
     * A git push body as the branch rule reads it: arbitrary bytes as the whole body (the command
     * list), and as the pack behind an update of the job's branch (the pack reader), never throw,
     * and give the same verdict however the body is cut into chunks.
     */
    @FuzzTest(maxDuration = "30s")
    void pushBody(byte[] input) {
        String update = "1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 refs/heads/agent/job-17"
                + "\0report-status side-band-64k\n";
        byte[] prefix = (String.format("%04x", update.length() + 4) + update + "0000").getBytes(StandardCharsets.ISO_8859_1);
        byte[] behindUpdate = new byte[prefix.length + input.length];
        System.arraycopy(prefix, 0, behindUpdate, 0, prefix.length);
        System.arraycopy(input, 0, behindUpdate, prefix.length, input.length);
        int cut = input.length % 7 + 1;
        for (byte[] body : List.of(input, behindUpdate)) {
            PushCheck.Outcome whole = push(body, body.length);
            assertEquals(whole, push(body, cut), "the verdict does not depend on where the chunks end");
            assertTrue(whole != PushCheck.Outcome.READING && whole != PushCheck.Outcome.CHECKING_PACK, "a verdict at the body's end");
        }
    }

    private static PushCheck.Outcome push(byte[] body, int piece) {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", new BranchRule(List.of("agent/job-17"))).start();
        for (int at = 0; at < body.length; at += piece) {
            check.feed(body, at, Math.min(piece, body.length - at));
        }
        PushCheck.Outcome outcome = check.finish();
        check.close();
        return outcome;
    }
}
