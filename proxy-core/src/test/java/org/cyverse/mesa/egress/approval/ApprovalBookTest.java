package org.cyverse.mesa.egress.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.approval.Approval.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inbox's life of an approval, against a clock moved by hand. */
class ApprovalBookTest {

    private Instant now = Instant.parse("2026-12-02T10:00:00Z");
    private final List<String> events = new ArrayList<>();
    private final ApprovalBook book = new ApprovalBook(new Clock() {
        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }, (outcome, a) -> events.add(outcome + " " + a.id()));

    {
        book.configure("P2", Duration.ofMinutes(15), 3);
    }

    private static Target get(String host, int port) throws Exception {
        return new Target(Destination.parse(host, port), "GET", "/");
    }

    @Test
    void theSameHostJoinsOnePendingRequestThenAGrantAllowsIt() throws Exception {
        ApprovalBook.Ask first = book.ask("pypi.example.org", 443);
        now = now.plusSeconds(30);
        ApprovalBook.Ask again = book.ask("pypi.example.org", 443);
        assertTrue(first.pending());
        assertEquals(first.approval().id(), again.approval().id(), "one request per host and port");
        assertEquals(2, again.approval().count());
        assertEquals(Set.of(443), again.approval().asked().ports());
        book.ask("pypi.example.org", 80); // another port: a request of its own
        assertEquals(Instant.parse("2026-12-02T10:15:00Z"), again.approval().expires(), "pending_ttl from the first ask");
        assertNull(book.grant(get("pypi.example.org", 443)));

        ApprovalBook.Result ok = book.approve(first.approval().id(), new ApprovalScope("pypi.example.org", Set.of(443), Set.of()),
                Duration.ofHours(1), "alice");

        assertEquals(200, ok.status(), ok.message());
        Decision granted = book.grant(get("pypi.example.org", 443));
        assertTrue(granted.allowed());
        assertEquals("approval " + first.approval().id() + ": pypi.example.org", granted.rule());
        assertNull(book.grant(get("pypi.example.org", 80)), "the port narrowed away stays refused");
        assertNull(book.grant(get("files.example.org", 443)));
        assertEquals("requested " + first.approval().id(), events.get(0));
        assertEquals("approved " + first.approval().id(), events.get(2));
        assertEquals(1, book.pending(), "port 80's request");
    }

    @Test
    void whatARequestAsksForNeverGrowsAnotherPortIsAnotherRequest() {
        ApprovalBook.Ask https = book.ask("pypi.example.org", 443);
        ApprovalBook.Ask ssh = book.ask("pypi.example.org", 22);
        assertNotEquals(https.approval().id(), ssh.approval().id());
        assertEquals(Set.of(443), book.ask("pypi.example.org", 443).approval().asked().ports(), "approving as shown gives what was shown");
    }

    @Test
    void aStateFileIsTrustedOnlyAsFarAsTheProxyWouldHaveWrittenIt(@TempDir Path dir) throws Exception {
        ApprovalStateFile file = new ApprovalStateFile(dir.resolve("approvals.json"));
        String grant = "{\"version\": 1, \"approvals\": [{\"id\": \"apr_ab\", \"state\": \"approved\", \"asked\": "
                + "{\"host\": \"%s\", \"ports\": [443]}, \"count\": 1, \"first_seen\": \"2026-12-02T10:00:00Z\", "
                + "\"last_seen\": \"2026-12-02T10:00:00Z\", \"expires\": \"2026-12-02T10:15:00Z\", \"decided_at\": "
                + "\"2026-12-02T10:01:00Z\", \"decided_by\": \"alice\", \"granted\": {\"host\": \"%s\", \"ports\": [%s]}, "
                + "\"grant_expires\": null}]}";
        Files.writeString(file.path(), String.format(grant, "docs.example.org", "docs.example.org", "443"));
        assertEquals(1, file.load().size(), "as the proxy writes it");
        for (String[] tampered : new String[][] {{"*.com", "*.com", "443"}, {"0.0.0.0/0", "0.0.0.0/0", "443"},
                {"docs.example.org.", "docs.example.org.", "443"}, {"docs.example.org", "docs.example.org", "443, 22"},
                {"docs.example.org", "other.example.org", "443"}}) {
            Files.writeString(file.path(), String.format(grant, (Object[]) tampered));
            assertEquals(List.of(), file.load(), String.join(" ", tampered));
        }
        Files.writeString(file.path(), String.format(grant, "docs.example.org", "docs.example.org", "443"));
        Files.setPosixFilePermissions(file.path(), java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        assertEquals(List.of(), file.load(), "a file others may write grants nothing");

        Files.writeString(file.path(), String.format(grant, "docs.example.org", "docs.example.org", "443"));
        Files.setPosixFilePermissions(file.path(), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        try {
            Files.setOwner(file.path(), file.path().getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        } catch (java.io.IOException e) {
            return; // not root here: cannot give the file away to try it
        }
        assertEquals(List.of(), file.load(), "a file another user owns grants nothing");
    }

    @Test
    void anApprovalCannotWidenWhatWasAsked() {
        String id = book.ask("a.example.org", 443).approval().id();
        ApprovalBook.Result wildcard = book.approve(id, new ApprovalScope("*.example.org", Set.of(443), Set.of()), null, "alice");
        assertEquals(400, book.approve(id, new ApprovalScope("a.example.org", Set.of(8443), Set.of()), null, "alice").status());
        assertEquals(400, wildcard.status());
        assertTrue(wildcard.message().contains("not the host asked for"), wildcard.message());
        assertEquals(400, book.approve(id, new ApprovalScope("a.example.org", Set.of(443, 8443), Set.of()), null, "alice").status());
        assertEquals(State.PENDING, book.list().get(0).state(), "nothing changed");
        ApprovalBook.Result narrower = book.approve(id, new ApprovalScope("a.example.org", Set.of(443), Set.of("GET")), null, "alice");
        assertEquals(200, narrower.status(), narrower.message());
        assertNull(narrower.approval().grantExpires(), "for the job");
    }

    @Test
    void aGrantEndsAtItsTtlEvenWithoutASweep() throws Exception {
        String id = book.ask("docs.example.org", 443).approval().id();
        book.approve(id, null, Duration.ofMinutes(10), "alice");
        now = now.plus(Duration.ofMinutes(10)).minusMillis(1);
        assertTrue(book.grant(get("docs.example.org", 443)).allowed());
        now = now.plusMillis(1);
        assertNull(book.grant(get("docs.example.org", 443)), "not a millisecond past its TTL");
        assertTrue(events.contains("grant_expired " + id), events.toString());
        ApprovalBook.Ask again = book.ask("docs.example.org", 443);
        assertNotEquals(id, again.approval().id(), "asking again opens a new request");
    }

    @Test
    void undecidedRequestsExpireAndCannotBeApprovedAfter() {
        String id = book.ask("late.example.org", 443).approval().id();
        now = now.plus(Duration.ofMinutes(15));
        book.sweep();
        assertTrue(events.contains("expired " + id));
        ApprovalBook.Result late = book.approve(id, null, Duration.ofHours(1), "alice");
        assertEquals(410, late.status());
        assertTrue(late.message().contains("expired"), late.message());
        assertEquals(404, book.approve("apr_00", null, null, "alice").status());
    }

    @Test
    void aDenialIsRememberedForPendingTtlThenTheHostMayAskAgain() {
        String id = book.ask("evil.example.org", 443).approval().id();
        assertEquals(200, book.deny(id, "bob").status());
        assertEquals(410, book.approve(id, null, null, "alice").status(), "decided once");
        now = now.plus(Duration.ofMinutes(14));
        ApprovalBook.Ask denied = book.ask("evil.example.org", 443);
        assertFalse(denied.pending());
        assertEquals(State.DENIED, denied.approval().state());
        assertEquals("bob", denied.approval().decidedBy());
        now = now.plus(Duration.ofMinutes(1));
        assertTrue(book.ask("evil.example.org", 443).pending());
    }

    @Test
    void atMaxPendingANewHostGetsNoRequest() {
        for (String host : List.of("a.test", "b.test", "c.test")) {
            assertTrue(book.ask(host, 443).pending());
        }
        assertTrue(book.ask("d.test", 443).full());
        assertTrue(book.ask("a.test", 443).pending(), "a pending host still joins its request");
    }

    @Test
    void theStateFileKeepsApprovalsAcrossARestartAndACorruptOneIsSetAside(@TempDir Path dir) throws Exception {
        String id = book.ask("pypi.example.org", 443).approval().id();
        book.approve(id, null, Duration.ofHours(2), "alice");
        String lapsing = book.ask("short.example.org", 443).approval().id();
        book.approve(lapsing, null, Duration.ofMinutes(5), "alice");
        ApprovalStateFile file = new ApprovalStateFile(dir.resolve("approvals.json"));
        file.save(book.list());

        now = now.plus(Duration.ofMinutes(30)); // the proxy was down a while
        List<String> restarted = new ArrayList<>();
        ApprovalBook next = new ApprovalBook(Clock.fixed(now, ZoneOffset.UTC), (o, a) -> restarted.add(o + " " + a.id()));
        next.configure("P2", Duration.ofMinutes(15), 100);
        next.restore(file.load());
        assertTrue(next.grant(get("pypi.example.org", 443)).allowed(), "kept across the restart");
        assertNull(next.grant(get("short.example.org", 443)), "ran out while the proxy was down");
        assertEquals(List.of("grant_expired " + lapsing), restarted);

        Files.writeString(file.path(), "{\"version\": 1, \"approvals\": [{\"id\": \"apr_1\", \"state\": \"approved\"");
        assertEquals(List.of(), file.load(), "a torn file grants nothing");
        assertFalse(Files.exists(file.path()));
        try (var aside = Files.list(dir)) {
            assertTrue(aside.anyMatch(p -> p.getFileName().toString().startsWith("approvals.json.corrupt-")), "kept aside for a person");
        }
    }
}
