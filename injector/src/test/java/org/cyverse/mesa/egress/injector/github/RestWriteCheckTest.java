package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The branch a REST write names in its body, read as the body streams, whatever the chunks. */
class RestWriteCheckTest {

    static final BranchRule RULE = new BranchRule(List.of("agent/job-17"));

    static BodyCheck.Status run(RestWriteCheck check, String body, int chunk) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        BodyCheck.Status status = BodyCheck.Status.HOLD;
        // As the proxy feeds it: every chunk while the check holds or drops a refused body's rest, then the end.
        for (int off = 0; off <= bytes.length && (status == BodyCheck.Status.HOLD || status == BodyCheck.Status.DROP); off += chunk) {
            int n = Math.min(chunk, bytes.length - off);
            byte[] part = new byte[Math.max(n, 0)];
            System.arraycopy(bytes, off, part, 0, part.length);
            boolean last = off + chunk >= bytes.length;
            status = check.inspect(part, last);
            if (last) {
                break;
            }
        }
        return status;
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "BRANCH | {\"message\":\"m\",\"content\":\"aGk=\",\"branch\":\"agent/job-17\"}          | CONTINUE |",
        "BRANCH | {\"branch\":\"main\",\"message\":\"m\"}                                   | REFUSE   | ref_not_allowed",
        "BRANCH | {\"message\":\"m\",\"content\":\"aGk=\"}                                   | REFUSE   | ref_not_allowed",
        "BRANCH | {\"nested\":{\"branch\":\"agent/job-17\"},\"branch\":\"main\"}              | REFUSE   | ref_not_allowed",
        "BRANCH | {\"nested\":{\"branch\":\"main\"},\"branch\":\"agent/job-17\"}              | CONTINUE |",
        "BRANCH | {\"branch\":\"agent/job-17\",\"branch\":\"main\"}                          | REFUSE   | bad_request",
        "BRANCH | {\"branch\":[\"agent/job-17\"]}                                          | REFUSE   | ref_not_allowed",
        "BRANCH | {\"branch\":\"agent/job-17\"}{\"branch\":\"main\"}                         | REFUSE   | bad_request",
        "BRANCH | [{\"branch\":\"agent/job-17\"}]                                          | REFUSE   | bad_request",
        "BRANCH | {\"branch\":\"agent/job-17\"                                              | REFUSE   | bad_request",
        "BRANCH | {\"branch\":\"agent/\\u006aob-17\"}                                       | CONTINUE |",
        "FORCE  | {\"sha\":\"aa\",\"force\":false}                                         | CONTINUE |",
        "FORCE  | {\"sha\":\"aa\"}                                                         | CONTINUE |",
        "FORCE  | {\"sha\":\"aa\",\"force\":true}                                          | REFUSE   | ref_not_allowed",
        "FORCE  | {\"sha\":\"aa\",\"force\":\"true\"}                                      | REFUSE   | ref_not_allowed",
        "REF    | {\"ref\":\"refs/heads/agent/job-17\",\"sha\":\"aa\"}                     | CONTINUE |",
        "REF    | {\"ref\":\"refs/heads/main\",\"sha\":\"aa\"}                             | REFUSE   | ref_not_allowed",
        "REF    | {\"ref\":\"refs/tags/v1\",\"sha\":\"aa\"}                                | REFUSE   | ref_not_allowed",
        "REF    | {\"ref\":\"refs/heads/agent/job-17/../../main\",\"sha\":\"aa\"}          | REFUSE   | ref_not_allowed",
        "BASE   | {\"base\":\"agent/job-17\",\"head\":\"main\"}                            | CONTINUE |",
        "BASE   | {\"base\":\"main\",\"head\":\"agent/job-17\"}                            | REFUSE   | ref_not_allowed",
    })
    void eachBodyInEveryChunking(RestWriteCheck.Field field, String body, BodyCheck.Status expected, String reason) {
        for (int chunk : new int[] {1, 3, 7, 4096}) {
            RestWriteCheck check = new RestWriteCheck.Plan("github", "acme/widgets", "the call", field,
                    field == RestWriteCheck.Field.FORCE ? "refs/heads/agent/job-17" : null, RULE).start();
            assertEquals(expected, run(check, body, chunk), body + " in chunks of " + chunk);
            if (reason == null) {
                assertNull(check.refusal());
            } else {
                assertEquals(reason, check.refusal().reason(), check.refusal().detail());
            }
        }
    }

    /** The GitHub MCP server's push_files sends force: true for every commit: it goes as force: false, which GitHub checks. */
    @Test
    void aForcedRefUpdateGoesOnAsNotForcedWhatEverItsChunks() throws Exception {
        String body = "{\"sha\":\"aa218f56b14c9653891f9e74264a383fa43fefbd\",\"force\":true}";
        for (int chunk : new int[] {1, 5, 4096}) {
            RestWriteCheck check = new RestWriteCheck.Plan("github", "acme/widgets", "updating refs/heads/agent/job-17",
                    RestWriteCheck.Field.FORCE, "refs/heads/agent/job-17", RULE).start();
            assertTrue(check.rewrites() && check.changesLength());
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            BodyCheck.Status status = BodyCheck.Status.HOLD;
            for (int off = 0; off < bytes.length; off += chunk) {
                boolean last = off + chunk >= bytes.length;
                byte[] part = Arrays.copyOfRange(bytes, off, Math.min(bytes.length, off + chunk));
                byte[] out = check.rewrite(part, last); // as the gate does: rewritten, then inspected
                sent.write(out);
                status = check.inspect(out, last);
            }
            assertEquals(BodyCheck.Status.CONTINUE, status, check.refusal() == null ? "" : check.refusal().detail());
            assertEquals("{\"sha\":\"aa218f56b14c9653891f9e74264a383fa43fefbd\",\"force\":false}", sent.toString(StandardCharsets.UTF_8));
        }
        RestWriteCheck allowedToForce = new RestWriteCheck.Plan("github", "acme/widgets", "updating", RestWriteCheck.Field.FORCE,
                "refs/heads/agent/job-17", new BranchRule(List.of("agent/job-17"), true)).start();
        assertTrue(!allowedToForce.rewrites(), "with force_push: true nothing is rewritten");
    }

    @Test
    void anLfsUploadGoesOnlyWhenTheJobMayPush() {
        String upload = "{\"operation\":\"upload\",\"transfers\":[\"basic\"],\"objects\":[{\"oid\":\"ab\",\"size\":3}]}";
        String download = upload.replace("upload", "download");
        for (boolean mayPush : new boolean[] {true, false}) {
            RestWriteCheck.Plan plan = new RestWriteCheck.Plan("github", "acme/widgets", "Git LFS batch", RestWriteCheck.Field.OPERATION,
                    null, RULE, mayPush);
            assertEquals(BodyCheck.Status.CONTINUE, run(plan.start(), download, 5));
            RestWriteCheck check = plan.start();
            assertEquals(mayPush ? BodyCheck.Status.CONTINUE : BodyCheck.Status.REFUSE, run(check, upload, 5));
            if (!mayPush) {
                assertTrue(check.refusal().detail().contains("the job may not write acme/widgets"), check.refusal().detail());
            }
            assertNull(check.refs(), "an LFS batch names no ref");
        }
    }

    @Test
    void theHeadWaitsUntilTheBodyHasBeenReadAndARefusalBeforeTheEndDropsTheRest() {
        RestWriteCheck check = new RestWriteCheck.Plan("github", "acme/widgets", "writing x", RestWriteCheck.Field.BRANCH, null, RULE)
                .start();
        assertTrue(check.holdsHead());
        assertEquals(BodyCheck.Status.HOLD, check.inspect("{\"branch\":\"agent/job-17\"".getBytes(StandardCharsets.UTF_8), false));
        assertEquals(BodyCheck.Status.CONTINUE, check.inspect("}".getBytes(StandardCharsets.UTF_8), true));
        assertEquals(List.of("refs/heads/agent/job-17"), check.refs());

        RestWriteCheck big = new RestWriteCheck.Plan("github", "acme/widgets", "writing x", RestWriteCheck.Field.BRANCH, null, RULE)
                .start();
        byte[] mib = new byte[1 << 20];
        Arrays.fill(mib, (byte) 'a');
        assertEquals(BodyCheck.Status.HOLD, big.inspect("{\"content\":\"".getBytes(StandardCharsets.UTF_8), false));
        BodyCheck.Status status = BodyCheck.Status.HOLD;
        for (int i = 0; i < 17 && status == BodyCheck.Status.HOLD; i++) {
            status = big.inspect(mib, false);
        }
        assertEquals(BodyCheck.Status.DROP, status, "past 16 MiB: refused, the rest read and dropped");
        assertTrue(big.refusal().detail().contains("larger than 16 MiB"), big.refusal().detail());
        assertEquals(BodyCheck.Status.REFUSE, big.inspect(new byte[0], true));
    }
}
