package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The branch rule on receive-pack command lists (pack-protocol.txt), as git 2.39 writes them:
 * what goes, what is refused, and the report git reads back.
 */
class PushCheckTest {

    static final String OLD = "1111111111111111111111111111111111111111";
    static final String NEW = "2222222222222222222222222222222222222222";
    static final String ZERO = "0".repeat(40);
    static final String CAPS = "report-status side-band-64k agent=git/2.39.5";
    /** The ref rule alone: force pushes allowed, so no pack is read. */
    static final BranchRule RULE = new BranchRule(List.of("agent/job-17"), true);

    /** pkt-lines of {@code commands}, the first with capabilities, then a flush and {@code pack}. */
    static byte[] body(String pack, String... commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < commands.length; i++) {
            String line = commands[i] + (i == 0 ? "\0" + CAPS : "") + "\n";
            byte[] b = line.getBytes(StandardCharsets.ISO_8859_1);
            out.writeBytes(String.format("%04x", b.length + 4).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(b);
        }
        out.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(pack.getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    static PushCheck.Outcome check(BranchRule rule, byte[] body, int split) {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", rule).start();
        // Fed in pieces, as the chunks of a request come: a pkt-line split anywhere reads the same.
        for (int at = 0; at < body.length && check.outcome() == PushCheck.Outcome.READING; at += split) {
            check.feed(body, at, Math.min(split, body.length - at));
        }
        return check.finish();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "the job branch, updated         | 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 refs/heads/agent/job-17 | ALLOWED",
        "the job branch, created         | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/heads/agent/job-17 | ALLOWED",
        "main                            | 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 refs/heads/main | REFUSED",
        "the job branch, deleted         | 1111111111111111111111111111111111111111 0000000000000000000000000000000000000000 refs/heads/agent/job-17 | REFUSED",
        "a tag named like the branch     | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/tags/agent/job-17 | REFUSED",
        "another case of the branch      | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/heads/Agent/Job-17 | REFUSED",
        "the prefix in upper case        | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 REFS/heads/agent/job-17 | REFUSED",
        "a dot-dot ref                   | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/heads/agent/job-17/../../main | REFUSED",
        "an @{ ref                       | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/heads/agent/job-17@{1} | REFUSED",
        "a branch under the job branch   | 0000000000000000000000000000000000000000 2222222222222222222222222222222222222222 refs/heads/agent/job-17/x | REFUSED",
        "HEAD                            | 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 HEAD | REFUSED",
        "a SHA-256 repository's ids      | 1111111111111111111111111111111111111111111111111111111111111111 2222222222222222222222222222222222222222222222222222222222222222 refs/heads/agent/job-17 | ALLOWED",
    })
    void oneCommand(String name, String command, PushCheck.Outcome expected) {
        for (int split : new int[] {1, 3, 7, 4096}) {
            assertEquals(expected, check(RULE, body("PACK\0\0\0\2", command), split), name + " fed " + split + " bytes at a time");
        }
    }

    @Test
    void aPushOfTheJobBranchAndMainIsRefusedWholeAndTheReportNamesBoth() {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", RULE).start();
        byte[] body = body("PACK", OLD + " " + NEW + " refs/heads/agent/job-17", OLD + " " + NEW + " refs/heads/main");
        check.feed(body, 0, body.length);

        assertEquals(PushCheck.Outcome.REFUSED, check.outcome());
        assertEquals(List.of("refs/heads/agent/job-17", "refs/heads/main"), check.refs());
        assertTrue(check.detail().contains("refs/heads/main") && check.detail().contains("refs/heads/agent/job-17"), check.detail());
        String report = new String(check.report(), StandardCharsets.ISO_8859_1);
        // side-band-64k: band 2 carries the message git prints as "remote: ...", band 1 the report.
        assertTrue(report.contains("\2mesa-egress: the push to acme/widgets updates refs/heads/main"), report);
        assertTrue(report.contains("unpack ok\n"), report);
        assertTrue(report.contains("ng refs/heads/main refused by egress policy: only refs/heads/agent/job-17 may be pushed\n"), report);
        assertTrue(report.contains("ng refs/heads/agent/job-17 refused by egress policy: the same push updates refs/heads/main"), report);
        assertTrue(report.endsWith("0000"), report);
    }

    @Test
    void theReportIsPktLinesGitCanFrame() {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", RULE).start();
        byte[] body = body("", OLD + " " + NEW + " refs/heads/main");
        check.feed(body, 0, body.length);
        byte[] report = check.report();
        int at = 0;
        int packets = 0;
        while (at < report.length) {
            int n = Integer.parseInt(new String(report, at, 4, StandardCharsets.US_ASCII), 16);
            assertTrue(n == 0 || n >= 5, "a band packet has a length, a band and data: " + n);
            at += n == 0 ? 4 : n;
            packets++;
        }
        assertEquals(report.length, at, "the lengths add up to the body");
        assertEquals(3, packets, "band 2, band 1, flush");
    }

    @Test
    void aClientWithoutReportStatusGetsNoReport() {
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", RULE).start();
        byte[] line = (OLD + " " + NEW + " refs/heads/main\0agent=x\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = (String.format("%04x", line.length + 4) + new String(line, StandardCharsets.ISO_8859_1) + "0000")
                .getBytes(StandardCharsets.ISO_8859_1);
        check.feed(body, 0, body.length);
        assertEquals(PushCheck.Outcome.REFUSED, check.outcome());
        assertNull(check.report());
    }

    @Test
    void withoutForcePushAnUpdateWaitsForThePackAndOneThatCannotBeShownAFastForwardIsRefused() {
        BranchRule noForce = new BranchRule(List.of("agent/job-17"));
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", noForce).start();
        // An empty pack (header, no objects, trailer): the new tip is not in it, so the update is not shown to be a fast-forward.
        String emptyPack = "PACK\0\0\0\2\0\0\0\0" + "x".repeat(20);
        byte[] body = body(emptyPack, OLD + " " + NEW + " refs/heads/agent/job-17");
        check.feed(body, 0, body.length - 10);
        assertEquals(PushCheck.Outcome.CHECKING_PACK, check.outcome(), "the list passed: the head may go while the pack streams");
        check.feed(body, body.length - 10, 10);
        assertEquals(PushCheck.Outcome.REFUSED, check.outcome(), "decided the moment the pack ends, before the body does:"
                + " the upstream applies a whole pack whatever follows it");
        check.feed("junk".getBytes(StandardCharsets.US_ASCII), 0, 4);
        assertEquals(PushCheck.Outcome.REFUSED, check.finish());
        assertTrue(check.detail().contains("is not a fast-forward"), check.detail());

        PushCheck created = new PushCheck.Plan("github", "acme/widgets", noForce).start();
        byte[] create = body(emptyPack, ZERO + " " + NEW + " refs/heads/agent/job-17");
        created.feed(create, 0, create.length);
        assertEquals(PushCheck.Outcome.ALLOWED, created.outcome(), "creating the branch reads no pack");

        PushCheck cut = new PushCheck.Plan("github", "acme/widgets", noForce).start();
        byte[] short_ = body("PACK\0\0\0\2\0\0\0\5", OLD + " " + NEW + " refs/heads/agent/job-17");
        cut.feed(short_, 0, short_.length);
        assertEquals(PushCheck.Outcome.MALFORMED, cut.finish(), "a pack that ends early");
    }

    @Test
    void pushOptionsBetweenTheListAndThePackAreSkipped() {
        // git push -o ci.skip: capability push-options, then the options up to a second flush (pack-protocol.txt).
        String line = OLD + " " + NEW + " refs/heads/agent/job-17\0report-status push-options\n";
        String body = String.format("%04x", line.length() + 4) + line + "0000" + "000cci.skip\n" + "0000"
                + "PACK\0\0\0\2\0\0\0\0" + "x".repeat(20);
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", new BranchRule(List.of("agent/job-17"))).start();
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        check.feed(bytes, 0, bytes.length);
        assertEquals(PushCheck.Outcome.REFUSED, check.outcome(), "the pack was found behind the options (and the update is no fast-forward)");
        assertTrue(check.detail().contains("not a fast-forward"), check.detail());
    }

    @Test
    void gitsProbeOfAFlushAloneUpdatesNothingAndGoes() {
        // git sends "0000" first when the pack is larger than http.postBuffer (remote-curl.c, probe_rpc).
        assertEquals(PushCheck.Outcome.ALLOWED, check(RULE, "0000".getBytes(StandardCharsets.US_ASCII), 4096));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "not pkt-line at all                 | PUT / HTTP/1.1",
        "a length below four                 | 0003",
        "a command with two parts            | 002f1111111111111111111111111111111111111111 refs/heads/x",
        "ids of two lengths                  | 00531111111111111111111111111111111111111111 2222222222222222222222222222222222222222222 refs/x",
        "a body that ends inside the list    | 00",
        "a signed push                       | 000epush-cert\0\n",
    })
    void bodiesThatAreNoCommandListAreMalformed(String name, String body) {
        assertEquals(PushCheck.Outcome.MALFORMED, check(RULE, body.getBytes(StandardCharsets.ISO_8859_1), 4096), name);
    }

    @Test
    void anOversizedCommandListIsRefusedWithoutReadingOn() {
        String[] commands = new String[ReceivePackCommands.MAX_COMMANDS + 1];
        for (int i = 0; i < commands.length; i++) {
            commands[i] = OLD + " " + NEW + " refs/heads/agent/job-17";
        }
        PushCheck check = new PushCheck.Plan("github", "acme/widgets", RULE).start();
        byte[] body = body("", commands);
        check.feed(body, 0, body.length);
        assertEquals(PushCheck.Outcome.MALFORMED, check.outcome());
        assertTrue(check.detail().contains("more than " + ReceivePackCommands.MAX_COMMANDS), check.detail());

        PushCheck endless = new PushCheck.Plan("github", "acme/widgets", RULE).start();
        byte[] shallow = ("0035shallow " + OLD + "\n").getBytes(StandardCharsets.US_ASCII);
        int fed = 0;
        while (endless.outcome() == PushCheck.Outcome.READING && fed < 10 * ReceivePackCommands.MAX_BYTES) {
            endless.feed(shallow, 0, shallow.length);
            fed += shallow.length;
        }
        assertEquals(PushCheck.Outcome.MALFORMED, endless.outcome(), "a list that never ends is cut at the bound");
        assertTrue(fed <= ReceivePackCommands.MAX_BYTES + shallow.length, fed + " bytes read");
    }

    @Test
    void patternsMatchOneSegmentOrMany() {
        BranchRule rule = new BranchRule(List.of("agent/job-17/*"));
        assertNull(rule.refusal(new ReceivePackCommands.Command(ZERO, NEW, "refs/heads/agent/job-17/fix")));
        assertTrue(rule.refusal(new ReceivePackCommands.Command(ZERO, NEW, "refs/heads/agent/job-17/a/b")) != null);
        assertTrue(rule.refusal(new ReceivePackCommands.Command(ZERO, NEW, "refs/heads/agent/job-17")) != null);
        BranchRule deep = new BranchRule(List.of("agent/**"));
        assertNull(deep.refusal(new ReceivePackCommands.Command(ZERO, NEW, "refs/heads/agent/job-17/a/b")));
        assertTrue(deep.refusal(new ReceivePackCommands.Command(ZERO, NEW, "refs/heads/main")) != null);
        assertTrue(BranchRule.problem("*") != null, "a rule that matches every branch is no rule");
        assertTrue(BranchRule.problem("agent/../main") != null);
        assertNull(BranchRule.problem("refs/heads/agent/job-17"));
    }
}
