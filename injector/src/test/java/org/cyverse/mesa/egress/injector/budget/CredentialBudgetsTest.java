package org.cyverse.mesa.egress.injector.budget;

import org.cyverse.mesa.egress.injector.CredentialLimits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.CredentialLimits.Kind;
import org.junit.jupiter.api.Test;

/** The budgets against a clock moved by hand: what an agent sending requests would see, second by second. */
class CredentialBudgetsTest {

    private final AtomicLong now = new AtomicLong(60_000_000_000L * 1000); // on a minute
    private final CredentialBudgets budgets = new CredentialBudgets(now::get);

    private static CredentialSpec spec(String name, CredentialLimits limits) {
        return new CredentialSpec(name, List.of(HostPattern.parse(name + ".test")), Set.of(443), Set.of(), List.of(), null, null,
                "Bearer {secret}", SecretRef.parse("env:X"), false, false, null, limits);
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    private BudgetTicket admitted(String... credentials) {
        return assertInstanceOf(BudgetTicket.class, budgets.admit(List.of(credentials)));
    }

    private static void end(BudgetTicket ticket, long up, long down) {
        ticket.moved(up, down);
        ticket.release();
    }

    private BudgetRefusal refused(String... credentials) {
        return assertInstanceOf(BudgetRefusal.class, budgets.admit(List.of(credentials)));
    }

    @Test
    void requestsPerMinuteAllowsExactlyThatManyInAnySixtySeconds() {
        budgets.configure(List.of(spec("llm", new CredentialLimits(3, 0, 0, 0))));
        admitted("llm").release();
        advance(Duration.ofSeconds(10));
        admitted("llm").release();
        admitted("llm").release();
        BudgetRefusal over = refused("llm");
        assertEquals(Kind.REQUESTS_PER_MINUTE, over.kind());
        assertEquals(3, over.limit());
        assertEquals(Duration.ofSeconds(50), over.retryAfter(), "the first request leaves the minute 50 s from now");
        advance(Duration.ofSeconds(49));
        refused("llm");
        advance(Duration.ofSeconds(1));
        admitted("llm").release(); // the first one is a minute old
        assertEquals(Duration.ofSeconds(10), refused("llm").retryAfter(), "the next to leave is the one of second 10");
    }

    @Test
    void aRefusedRequestCountsForNothing() {
        budgets.configure(List.of(spec("llm", new CredentialLimits(1, 0, 0, 0))));
        admitted("llm");
        for (int i = 0; i < 100; i++) {
            refused("llm"); // an agent retrying in a loop does not push its own wait further out
            advance(Duration.ofMillis(500));
        }
        advance(Duration.ofSeconds(10));
        admitted("llm");
    }

    @Test
    void concurrentCountsRequestsUntilTheyAreReleased() {
        budgets.configure(List.of(spec("llm", new CredentialLimits(0, 2, 0, 0))));
        BudgetTicket first = admitted("llm");
        BudgetTicket second = admitted("llm");
        BudgetRefusal over = refused("llm");
        assertEquals(Kind.CONCURRENT, over.kind());
        assertEquals(Duration.ofSeconds(1), over.retryAfter());
        assertEquals(2, budgets.inFlight("llm"));
        first.release();
        first.release(); // twice: still one place freed
        assertEquals(1, budgets.inFlight("llm"));
        admitted("llm");
        refused("llm");
        second.release();
        assertEquals(1, budgets.inFlight("llm"));
    }

    @Test
    void bytesPerHourSlideMinuteByMinute() {
        budgets.configure(List.of(spec("s3", new CredentialLimits(0, 0, 1000, 5000))));
        advance(Duration.ofSeconds(30)); // mid-minute
        end(admitted("s3"), 600, 100);
        advance(Duration.ofMinutes(20));
        end(admitted("s3"), 400, 100); // 1000 sent in the hour: the limit is reached
        BudgetRefusal over = refused("s3");
        assertEquals(Kind.REQUEST_BYTES_PER_HOUR, over.kind());
        assertEquals("request_bytes_per_hour: 1000 B", over.describe());
        // The 600 bytes leave when their minute is an hour old: 40 minutes minus the 30 s into that minute.
        assertEquals(Duration.ofMinutes(40).minusSeconds(30), over.retryAfter());
        advance(over.retryAfter().minusSeconds(1));
        refused("s3");
        advance(Duration.ofSeconds(1));
        end(admitted("s3"), 0, 4900); // 400 sent, 5000 received in the hour
        assertEquals(Kind.RESPONSE_BYTES_PER_HOUR, refused("s3").kind());
    }

    @Test
    void aRequestCarryingTwoCredentialsIsCountedForBothOrNeither() {
        budgets.configure(List.of(spec("a", new CredentialLimits(0, 1, 0, 0)), spec("b", new CredentialLimits(0, 5, 0, 0))));
        BudgetTicket onlyB = admitted("b");
        admitted("a");
        assertEquals("a", refused("b", "a").credential());
        assertEquals(1, budgets.inFlight("b"), "b counted no place for the refused request");
        onlyB.release();
        assertEquals(0, budgets.inFlight("b"));
    }

    @Test
    void credentialsWithoutLimitsAreNotCounted() {
        budgets.configure(List.of(spec("free", CredentialLimits.NONE)));
        for (int i = 0; i < 1000; i++) {
            assertSame(BudgetTicket.NONE, budgets.admit(List.of("free", "unknown")));
        }
    }

    @Test
    void aReloadKeepsWhatWasCountedUnderTheNewLimits() {
        budgets.configure(List.of(spec("llm", new CredentialLimits(5, 3, 0, 0))));
        List<BudgetTicket> running = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            running.add(admitted("llm"));
            advance(Duration.ofSeconds(1));
        }
        // Fewer per minute and fewer at once: the three started and still running count.
        budgets.configure(List.of(spec("llm", new CredentialLimits(2, 2, 0, 0))));
        BudgetRefusal over = refused("llm");
        assertEquals(Kind.REQUESTS_PER_MINUTE, over.kind());
        assertEquals(Duration.ofSeconds(58), over.retryAfter(), "the newest two starts were kept: the older of them is 2 s old");
        advance(Duration.ofMinutes(1));
        assertEquals(Kind.CONCURRENT, refused("llm").kind());
        running.forEach(t -> t.release());
        admitted("llm");
        // Raised again: nothing is lost and the new room is there at once.
        budgets.configure(List.of(spec("llm", new CredentialLimits(10, 10, 0, 0))));
        for (int i = 0; i < 9; i++) {
            admitted("llm");
        }
        assertEquals(Kind.REQUESTS_PER_MINUTE, refused("llm").kind());
        // Limits removed: no longer limited; a running request's release is harmless.
        budgets.configure(List.of(spec("llm", CredentialLimits.NONE)));
        end(running.get(0), 10, 10);
        for (int i = 0; i < 100; i++) {
            admitted("llm");
        }
    }

    @Test
    void limitsTakenAwayAndPutBackStillSeeTheRequestsInFlight() {
        budgets.configure(List.of(spec("llm", new CredentialLimits(0, 1, 0, 0))));
        BudgetTicket running = admitted("llm");
        budgets.configure(List.of(spec("llm", CredentialLimits.NONE)));
        budgets.configure(List.of());
        budgets.configure(List.of(spec("llm", new CredentialLimits(0, 1, 0, 0))));
        assertEquals(Kind.CONCURRENT, refused("llm").kind(), "the request still running holds the one place");
        running.release();
        admitted("llm");
    }

    @Test
    void bytesOfRequestsInFlightCountAgainstTheNextAdmission() {
        budgets.configure(List.of(spec("s3", new CredentialLimits(0, 0, 0, 100 * 1024))));
        BudgetTicket first = admitted("s3");
        BudgetTicket second = admitted("s3");
        for (int i = 0; i < 4; i++) {
            first.moved(0, 8 * 1024);
            second.moved(0, 8 * 1024);
        }
        admitted("s3").release(); // 64 KiB reported so far: still below 100 KiB
        for (int i = 0; i < 4; i++) {
            first.moved(0, 8 * 1024);
            second.moved(0, 8 * 1024);
        }
        assertEquals(Kind.RESPONSE_BYTES_PER_HOUR, refused("s3").kind(), "128 KiB relayed by two downloads still running");
        first.release();
        second.release();
    }

    @Test
    void describesLimitsForAPerson() {
        assertEquals("600 requests/min, 16 concurrent, 1 GiB sent/hour, 1.5 MiB received/hour",
                new CredentialLimits(600, 16, 1L << 30, 3L << 19).describe());
        assertEquals("none", CredentialLimits.NONE.describe());
        assertTrue(new CredentialLimits(0, 1, 0, 0).any());
    }
}
