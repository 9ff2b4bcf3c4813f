package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.junit.jupiter.api.Test;

/** {@code mesa-egress approvals} against a real running proxy: list, approve narrower, deny; a wrong token is refused. */
class ApprovalsCommandTest extends CommandTestBase {

    static final String TOKEN = "operator-token-1f2e3d4c5b6a";
    static final ObjectMapper JSON = new ObjectMapper();

    private static String ask(ProxyFixture proxy, String url) throws Exception {
        HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port()))).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, r.statusCode());
        return JSON.readTree(r.body()).path("approval_id").asText();
    }

    @Test
    void listApproveNarrowerAndDenyWithTheAdminToken() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "ops " + TOKEN + "\n");
        Path wrong = dir.resolve("wrong");
        Files.writeString(wrong, "not-the-token-0000000000\n");
        String yaml = "profile: P2\negress: N2\nadmin: {listen: 127.0.0.1:0, token_file: \"" + token + "\"}\napprovals: {enabled: true}\n";
        try (ProxyFixture proxy = ProxyFixture.start(yaml, host -> List.of(InetAddress.getByName("127.0.0.1")))) {
            String pypi = ask(proxy, "http://pypi.test:8080/simple/");
            String evil = ask(proxy, "http://evil.test:8080/");
            String admin = "127.0.0.1:" + proxy.adminPort();

            assertEquals(0, run("approvals", "list", "--admin", admin, "--token-file", token.toString()), err());
            assertTrue(out().contains(pypi) && out().contains("pypi.test:8080") && out().contains("2 pending"), out());

            reset();
            assertEquals(1, run("approvals", "list", "--admin", admin, "--token-file", wrong.toString()));
            assertTrue(err().contains("401 admin_unauthorized"), err());

            reset();
            assertEquals(2, run("approvals", "approve", pypi, "--admin", admin, "--token-file", token.toString()));
            assertTrue(err().contains("--ttl"), err());

            reset();
            assertEquals(0, run("approvals", "approve", pypi, "--ttl", "1h", "--methods", "get,head", "--admin", admin,
                    "--token-file", token.toString()), err());
            assertTrue(out().contains("approved pypi.test:8080 (GET, HEAD) for 1h"), out());

            reset();
            assertEquals(0, run("approvals", "deny", evil, "--admin", admin, "--token-file", token.toString()), err());
            reset();
            assertEquals(1, run("approvals", "deny", evil, "--admin", admin, "--token-file", token.toString()));
            assertTrue(err().contains("410") && err().contains("already denied"), err());

            reset();
            assertEquals(0, run("approvals", "list", "--json", "true", "--admin", admin, "--token-file", token.toString()));
            JsonNode listed = JSON.readTree(out());
            assertEquals("ops", listed.path("approvals").get(0).path("decided_by").asText(), "the token's label is who decided");
            assertEquals("[\"GET\",\"HEAD\"]", listed.path("approvals").get(0).path("granted").path("methods").toString());
            reset();
            assertEquals(1, run("approvals", "approve", "apr_00", "--ttl", "1h", "--ports", "443", "--admin", admin, "--token-file",
                    token.toString()));
            assertTrue(err().contains("no approval apr_00"), err());
            reset();
            assertEquals(2, run("approvals", "deny", "apr 1", "--admin", admin, "--token-file", token.toString()));
            reset();
            assertEquals(2, run("approvals", "approve", pypi, "--ttl", "10", "--admin", admin, "--token-file", token.toString()));
            assertTrue(err().contains("ttl must be a whole number"), err());
            reset();
            assertEquals(2, run("approvals", "list", "--admin", "http://user:pw@127.0.0.1:1", "--token-file", token.toString()));
            assertTrue(!err().contains("pw"), "credentials in --admin are not echoed: " + err());
        }
        reset();
        assertEquals(1, run("approvals", "list", "--admin", "127.0.0.1:1", "--token-file", token.toString()));
        assertTrue(err().contains("nothing answers on the admin port"), err());
    }
}
