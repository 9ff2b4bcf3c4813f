package org.cyverse.mesa.egress.injector;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Credential injection (SPEC.md decision step 5) with 1 and 50 configured credentials, each with
 * its own host and sentinel and a fixed secret from an {@code env:} source (no network):
 * <ul>
 *   <li>{@code injectSentinel}: {@link Injector#apply} on an HTTPS POST with 12 realistic headers,
 *       one of them {@code authorization: Bearer <sentinel>} of the last credential, sent to that
 *       credential's host: every place is scanned for every secret and sentinel, the sentinel is
 *       replaced ({@code INJECTED});
 *   <li>{@code noSentinel}: the same request with that header swapped for an ordinary one, the
 *       common case: the same scans, nothing found, the request goes out as it came
 *       ({@code UNCHANGED}; the credentials set no header of their own);
 *   <li>{@code scrubBody} / {@code scrubBodyWithSecret}: a JSON (SSE) response body of 1 KiB or
 *       1 MiB streamed through {@link Injector#responseScrubber()} (every held secret to its
 *       sentinel: one pattern per credential) in 16 KiB chunks, as the proxy does it
 *       ({@code BodyRewriting.rewrite}): the bytes of a pooled direct {@link ByteBuf} copied out,
 *       fed, the output wrapped in a new buffer and released; without and with one echoed secret
 *       in the middle of the body. The scrubber is created per body, as per response in the proxy.
 * </ul>
 * Setup checks each outcome, and that the scrubber replaces a secret cut across two chunks.
 */
@State(Scope.Benchmark)
public class InjectorBenchmark extends BenchmarkBase {

    static final int CHUNK = 16 * 1024;

    @Param({"1", "50"})
    public int credentials;

    private ScheduledExecutorService executor;
    private Injector injector;
    private OutgoingRequest withSentinel;
    private OutgoingRequest withoutSentinel;

    /** A secret shaped like a real one: prefixes differ by vendor, so the scrubber's first bytes differ too. */
    static String secret(int i) {
        String[] prefixes = {"sk-ant-api03-", "ghs_", "sk-proj-", "xoxb-", "glpat-", "hf_", "AKIA", "key-"};
        StringBuilder sb = new StringBuilder(prefixes[i % prefixes.length]);
        long x = 0x9E3779B97F4A7C15L * (i + 1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        for (int k = 0; k < 40; k++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            sb.append(alphabet.charAt((int) Math.floorMod(x, (long) alphabet.length())));
        }
        return sb.toString();
    }

    /** Fixed width, so that no sentinel is a substring of another. */
    static String sentinel(int i) {
        return String.format("mesa-sentinel-%03d", i);
    }

    static String name(int i) {
        return String.format("cred%03d", i);
    }

    static String host(int i) {
        return String.format("api.vendor%03d.example.com", i);
    }

    @Setup
    public void setUp() throws Exception {
        List<CredentialSpec> specs = new ArrayList<>();
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < credentials; i++) {
            // Like the github credential of the workbench overlay: a sentinel, no header of its own.
            specs.add(new CredentialSpec(name(i), List.of(HostPattern.parse(host(i))), Set.of(443), Set.of(), List.of(),
                    sentinel(i), null, "Bearer {secret}", SecretRef.parse("env:" + name(i).toUpperCase()), false, false));
            env.put(name(i).toUpperCase(), secret(i));
        }
        executor = Executors.newSingleThreadScheduledExecutor();
        CredentialStore store = new CredentialStore(specs, Map.of("env", new EnvSecretSource(env)), executor, (c, o) -> { });
        store.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.notReadyReason() != null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(store.notReadyReason());
            }
            Thread.sleep(5);
        }
        // env: values never expire or change: stop the refresh loop so that no background tick runs during measurement.
        store.close();
        executor.shutdownNow();
        injector = new Injector(specs, store);

        int target = credentials - 1;
        withSentinel = request(target, Map.entry("authorization", "Bearer " + sentinel(target)));
        withoutSentinel = request(target, Map.entry("x-stainless-retry-count", "0"));

        Injection injected = injectSentinel();
        if (injected.outcome() != Injection.Outcome.INJECTED || !name(target).equals(injected.credential())
                || !injected.headers().contains(Map.entry("authorization", "Bearer " + secret(target)))) {
            throw new IllegalStateException("expected the sentinel replaced, got " + injected);
        }
        Injection unchanged = noSentinel();
        if (unchanged.outcome() != Injection.Outcome.UNCHANGED) {
            throw new IllegalStateException("expected no change, got " + unchanged);
        }
        // The scrubber on three chunks with the secret of credential 0 cut across the first boundary.
        byte[] echo = Body.json(3 * CHUNK);
        byte[] secret = secret(0).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(secret, 0, echo, CHUNK - secret.length / 2, secret.length);
        List<ByteBuf> chunks = Body.chunks(echo);
        String text = new String(scrubbed(chunks), StandardCharsets.ISO_8859_1);
        chunks.forEach(ByteBuf::release);
        if (text.contains(secret(0)) || !text.contains(sentinel(0))
                || text.length() != echo.length - secret.length + sentinel(0).length()) {
            throw new IllegalStateException("the response scrubber did not replace the echoed secret");
        }
    }

    @TearDown
    public void tearDown() {
        executor.shutdownNow();
    }

    /** An HTTPS POST to credential {@code target}'s host, 11 common headers plus {@code last}. */
    private static OutgoingRequest request(int target, Map.Entry<String, String> last) throws InvalidDestinationException {
        List<Map.Entry<String, String>> headers = List.of(
                Map.entry("host", host(target)),
                Map.entry("user-agent", "claude-cli/1.0.58 (external, cli)"),
                Map.entry("accept", "application/json"),
                Map.entry("accept-encoding", "gzip, deflate, br"),
                Map.entry("accept-language", "en-US,en;q=0.9"),
                Map.entry("content-type", "application/json"),
                Map.entry("content-length", "1432"),
                Map.entry("anthropic-version", "2023-06-01"),
                Map.entry("x-request-id", "6f1c2b0e-4a7d-4f3e-9c1a-2b7e5d8f0a13"),
                Map.entry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                Map.entry("referer", "https://workbench.cyverse.org/apps/jupyter?path=%2Fhome%2Fuser%2Fnotebook.ipynb"),
                last);
        return new OutgoingRequest(true, Destination.parse(host(target), 443), "POST", "/v1/messages?beta=true", headers);
    }

    @Benchmark
    public Injection injectSentinel() {
        return injector.apply(withSentinel);
    }

    @Benchmark
    public Injection noSentinel() {
        return injector.apply(withoutSentinel);
    }

    /** A response body, without and with an echoed secret, as pooled direct buffers of 16 KiB (what a socket read hands over). */
    @State(Scope.Benchmark)
    public static class Body {

        @Param({"1024", "1048576"})
        public int bodyBytes;

        List<ByteBuf> clean;
        List<ByteBuf> echoing;

        @Setup
        public void setUp() {
            byte[] text = json(bodyBytes);
            clean = chunks(text);
            // The secret of credential 0, which exists for every count of credentials.
            byte[] secret = secret(0).getBytes(StandardCharsets.UTF_8);
            byte[] echo = text.clone();
            int at = bodyBytes / 2 - secret.length / 2;
            System.arraycopy(secret, 0, echo, at, secret.length);
            echoing = chunks(echo);
        }

        @TearDown
        public void tearDown() {
            clean.forEach(ByteBuf::release);
            echoing.forEach(ByteBuf::release);
        }

        /** Server-sent events of an LLM answer, cut to {@code size} bytes. */
        static byte[] json(int size) {
            StringBuilder sb = new StringBuilder(size + 256);
            String[] words = {"the", "proxy", "streams", "each", "chunk", "through", "a", "replacer", "that", "holds",
                "back", "at", "most", "one", "pattern's", "length", "so", "memory", "stays", "bounded"};
            for (int i = 0; sb.length() < size; i++) {
                sb.append("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,")
                        .append("\"delta\":{\"type\":\"text_delta\",\"text\":\"")
                        .append(words[i % words.length]).append(' ').append(words[(i * 7 + 3) % words.length])
                        .append(" \"}}\n\n");
            }
            byte[] all = sb.toString().getBytes(StandardCharsets.UTF_8);
            byte[] out = new byte[size];
            System.arraycopy(all, 0, out, 0, size);
            return out;
        }

        static List<ByteBuf> chunks(byte[] body) {
            List<ByteBuf> list = new ArrayList<>();
            for (int off = 0; off < body.length; off += CHUNK) {
                int len = Math.min(CHUNK, body.length - off);
                ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(len);
                buf.writeBytes(body, off, len);
                list.add(buf);
            }
            return list;
        }
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long scrubBody(Body body) {
        return scrub(body.clean);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long scrubBodyWithSecret(Body body) {
        return scrub(body.echoing);
    }

    /** Streams one body as {@code BodyRewriting.rewrite} does; returns the number of bytes sent on. */
    private long scrub(List<ByteBuf> chunks) {
        StreamReplacer replacer = injector.responseScrubber();
        long sent = 0;
        for (int i = 0; i < chunks.size(); i++) {
            ByteBuf in = chunks.get(i);
            byte[] bytes = ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), true);
            byte[] out = replacer.feed(bytes, 0, bytes.length);
            ByteBuf buf = i == chunks.size() - 1 ? Unpooled.wrappedBuffer(out, replacer.finish()) : Unpooled.wrappedBuffer(out);
            sent += buf.readableBytes();
            buf.release();
        }
        return sent;
    }

    /** The whole scrubbed body, for the check in setup. */
    private byte[] scrubbed(List<ByteBuf> chunks) {
        StreamReplacer replacer = injector.responseScrubber();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (ByteBuf in : chunks) {
            byte[] bytes = ByteBufUtil.getBytes(in, in.readerIndex(), in.readableBytes(), true);
            all.writeBytes(replacer.feed(bytes, 0, bytes.length));
        }
        all.writeBytes(replacer.finish());
        return all.toByteArray();
    }
}
