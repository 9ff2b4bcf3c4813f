package org.cyverse.mesa.egress.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The audit writer (a {@link StreamSink} of JSON lines): nothing lost, nothing reordered, written in batches, waits when full. */
class AuditLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A sink that counts the writes it receives, as the operating system would. */
    private static class Sink extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public synchronized void write(int b) {
            writes.incrementAndGet();
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            writes.incrementAndGet();
            bytes.write(b, off, len);
        }

        synchronized List<JsonNode> records() throws IOException {
            List<JsonNode> out = new ArrayList<>();
            for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty()) {
                    out.add(JSON.readTree(line));
                }
            }
            return out;
        }
    }

    private static AuditRecord record(int n) {
        return AuditRecord.builder()
                .ts("2026-11-29T00:00:00Z")
                .profile("P2")
                .client("127.0.0.1:1")
                .mode("forward")
                .method("GET")
                .scheme("http")
                .host("example.org")
                .port(n)
                .path("/")
                .decision("allow")
                .reason("allowed")
                .rule("example.org")
                .status(200)
                .bytesUp(10)
                .bytesDown(1024)
                .durationMs(1)
                .build();
    }

    @Test
    void everyRecordIsWrittenOncePerLineInOrder() throws IOException {
        Sink sink = new Sink();
        StreamSink log = new StreamSink(sink, false, new JsonLinesFormat());
        for (int i = 0; i < 5_000; i++) {
            log.record(record(i));
        }
        log.close();
        List<JsonNode> records = sink.records();
        assertEquals(5_000, records.size());
        for (int i = 0; i < records.size(); i++) {
            assertEquals(i, records.get(i).get("port").asInt(), "record " + i + " out of order");
        }
        assertEquals("allow", records.get(0).get("decision").asText());
    }

    @Test
    void eachLineHasEveryFieldOfTheContractInItsOrder() throws IOException {
        Sink sink = new Sink();
        StreamSink log = new StreamSink(sink, false, new JsonLinesFormat());
        // The first record sets only what it has: a field never set is written as null.
        log.record(AuditRecord.builder()
                .ts("2026-11-29T00:00:00Z")
                .profile("P2")
                .client("127.0.0.1:1")
                .mode("tunnel")
                .method("CONNECT")
                .host("example.org")
                .decision("deny")
                .reason("not_allowed")
                .status(403)
                .durationMs(1)
                .build());
        log.record(AuditRecord.builder()
                .ts("2026-11-29T00:00:01Z")
                .profile("P2")
                .client("127.0.0.1:2")
                .mode("intercept")
                .method("POST")
                .scheme("https")
                .host("api.github.com")
                .port(443)
                .path("/repos/o/r/git/\"refs\"")
                .decision("allow")
                .reason("allowed")
                .rule("api.github.com")
                .credential("github")
                .place("body")
                .dlp("card é")
                .status(200)
                .bytesUp(10)
                .bytesDown(20)
                .durationMs(3)
                .parts(java.util.List.of(new org.cyverse.mesa.egress.injector.github.GitHubUse.Audit(null, "git-receive-pack",
                        java.util.Arrays.asList("refs/heads/agent/a1", null))))
                .websocket(new AuditRecord.WebSocket(4, 5, 1000, "client"))
                .protocol("h2")
                .build());
        log.close();
        String[] lines = sink.bytes.toString(StandardCharsets.UTF_8).split("\n", -1);
        assertEquals(3, lines.length, "two lines, each ended by a newline");
        assertEquals("{\"ts\":\"2026-11-29T00:00:00Z\",\"profile\":\"P2\",\"client\":\"127.0.0.1:1\",\"mode\":\"tunnel\","
                + "\"method\":\"CONNECT\",\"scheme\":null,\"host\":\"example.org\",\"port\":null,\"path\":null,\"decision\":\"deny\","
                + "\"reason\":\"not_allowed\",\"rule\":null,\"credential\":null,\"place\":null,\"dlp\":null,\"status\":403,"
                + "\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":1}", lines[0]);
        assertEquals("{\"ts\":\"2026-11-29T00:00:01Z\",\"profile\":\"P2\",\"client\":\"127.0.0.1:2\",\"mode\":\"intercept\","
                + "\"method\":\"POST\",\"scheme\":\"https\",\"host\":\"api.github.com\",\"port\":443,"
                + "\"path\":\"/repos/o/r/git/\\\"refs\\\"\",\"decision\":\"allow\",\"reason\":\"allowed\",\"rule\":\"api.github.com\","
                + "\"credential\":\"github\",\"place\":\"body\",\"dlp\":\"card é\",\"status\":200,\"bytes_up\":10,\"bytes_down\":20,"
                + "\"duration_ms\":3,\"github\":{\"operation\":\"git-receive-pack\",\"refs\":[\"refs/heads/agent/a1\",null]},"
                + "\"websocket\":{\"messages_up\":4,\"messages_down\":5,\"close_code\":1000,\"closed_by\":\"client\"},"
                + "\"protocol\":\"h2\"}", lines[1]);
        assertEquals("", lines[2]);
    }

    @Test
    void aBurstReachesTheSinkInFewWrites() throws IOException {
        Sink sink = new Sink();
        StreamSink log = new StreamSink(sink, false, new JsonLinesFormat());
        for (int i = 0; i < 10_000; i++) {
            log.record(record(i));
        }
        log.close();
        assertEquals(10_000, sink.records().size());
        // One write per record would be 20,000 (the record and its newline); a batch is one write per 64 KiB.
        assertTrue(sink.writes.get() < 1_000, "writes: " + sink.writes.get());
    }

    @Test
    void aLoneRecordReachesTheSinkWithoutWaitingForMore() throws Exception {
        Sink sink = new Sink();
        try (StreamSink log = new StreamSink(sink, false, new JsonLinesFormat())) {
            Thread.sleep(50); // the writer has gone idle
            for (int round = 1; round <= 3; round++) {
                log.record(record(round));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (sink.records().size() < round && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(round, sink.records().size(), "record " + round + " not written while the proxy runs");
                Thread.sleep(3 * StreamSink.BATCH_MILLIS); // idle again before the next one
            }
        }
    }

    @Test
    void aFullQueueMakesTheCallerWaitAndLosesNothing() throws Exception {
        CountDownLatch sinkBlocked = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        Sink sink = new Sink() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                sinkBlocked.countDown();
                try {
                    unblock.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                super.write(b, off, len);
            }
        };
        // A queue of 8 and records larger than the 64 KiB buffer once 300 are queued: the sink must be written.
        StreamSink log = new StreamSink(sink, false, new JsonLinesFormat(), 8);
        CountDownLatch producerDone = new CountDownLatch(1);
        Thread producer = new Thread(() -> {
            for (int i = 0; i < 1_000; i++) {
                log.record(record(i));
            }
            producerDone.countDown();
        });
        producer.start();
        assertTrue(sinkBlocked.await(5, TimeUnit.SECONDS), "the writer never reached the sink");
        assertFalse(producerDone.await(300, TimeUnit.MILLISECONDS), "the producer went on while the queue was full");
        unblock.countDown();
        assertTrue(producerDone.await(10, TimeUnit.SECONDS), "the producer stayed blocked after the sink recovered");
        log.close();
        List<JsonNode> records = sink.records();
        assertEquals(1_000, records.size());
        assertEquals(999, records.get(999).get("port").asInt());
    }
}
