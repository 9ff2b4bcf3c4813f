package org.cyverse.mesa.egress.injector.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The built-in DLP rules: each format found in a realistic line, near misses and low-entropy fakes not. */
class DlpRulesTest {

    private static DlpScanner scanner() {
        return new DlpScanner(DlpRules.all(), Set.of("ghp_SENTINELsentinelSENTINELsentinel0000"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            aws-access-token        | export AWS_ACCESS_KEY_ID=AKIAQ3EGRT7BMX2PL5VZ
            github-pat              | GH_TOKEN=ghp_Zk4Q9wYtR2mVx8LpN3bC7dF1hJ6sA0eG5uKo
            github-app-token        | Authorization: token ghs_8HqLw2ZtV9xR4mN7cP1kD5sF3gJ6bY0eA2uQ
            github-fine-grained-pat | {"t":"github_pat_11ABCDEFG0aZ9yX8wV7uT6_s5R4q3P2o1N0mLkJiHgFeDcBa9Z8y7X6w5V4u3T2s1R0qPoNmLkJiH1234567"}
            gitlab-pat              | token: glpat-x8Yz3Qw9Rt5Vb2Nm7Lk1
            slack-bot-token         | SLACK=xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx
            slack-webhook-url       | url = https://hooks.slack.com/services/T01ABCDEF23/B04GHIJKL56/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdefg
            private-key             | "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAA"
            jwt                     | bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c
            """)
    void findsEachFormat(String rule, String line) {
        DlpRule found = scanner().scan(line);
        assertEquals(rule, found == null ? null : found.id(), line);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",          // the shape, no entropy
        "ghp_short",
        "the word xoxb without a token",
        "-----BEGIN CERTIFICATE-----",
        "eyJhbGciOiJIUzI1NiJ9 alone is no JWT",
        "ghp_SENTINELsentinelSENTINELsentinel0000",         // the configured sentinel
    })
    void nearMissesAndSentinelsDoNotCount(String line) {
        DlpRule found = scanner().scan(line);
        assertNull(found, line + " matched " + found);
    }

    @Test
    void aTokenSplitAcrossChunksIsFound() {
        byte[] body = ("{\"note\":\"" + "x".repeat(3000) + " ghp_Zk4Q9wYtR2mVx8LpN3bC7dF1hJ6sA0eG5uKo \"}").getBytes(StandardCharsets.US_ASCII);
        for (int split : new int[] {3010, 3015, 3030}) {
            DlpScanner s = scanner();
            assertNull(s.feed(body, 0, split));
            assertNull(s.flush(), "the first part alone holds no whole token");
            s.feed(body, split, body.length - split);
            DlpRule found = s.flush();
            assertEquals("github-pat", found == null ? null : found.id(), "split at " + split);
        }
    }

    @Test
    void aBodySentInTinyChunksIsMatchedInRuns() {
        byte[] body = ("x".repeat(40000) + " AKIAQ3EGRT7BMX2PL5VZ " + "y".repeat(100)).getBytes(StandardCharsets.US_ASCII);
        DlpScanner s = scanner();
        DlpRule found = null;
        for (int i = 0; i < body.length && found == null; i++) {
            found = s.feed(body, i, 1);
        }
        if (found == null) {
            found = s.flush();
        }
        assertEquals("aws-access-token", found == null ? null : found.id());
    }

    @Test
    void highEntropyAuthorization() {
        assertTrue(DlpRules.highEntropyAuthorization("Bearer 9f8Kq2LmZx7Vt4RwPn3Yb6Hc"));
        assertFalse(DlpRules.highEntropyAuthorization("Bearer aaaaaaaaaaaaaaaaaaaaaaaa"));
        assertFalse(DlpRules.highEntropyAuthorization("Bearer short"));
    }
}
