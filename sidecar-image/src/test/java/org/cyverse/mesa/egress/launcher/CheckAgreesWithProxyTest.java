package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code check URL} and the running proxy give the same verdict: each row is decided by the
 * {@code check} command and sent for real through the proxy with curl (upstreams on loopback,
 * names resolved to 127.0.0.1 by the test's resolver), and the {@code decision}, {@code reason},
 * {@code rule}, {@code mode} and {@code credential} of check's JSON must equal those of the
 * proxy's audit record.
 */
class CheckAgreesWithProxyTest extends CommandTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static HttpServer plain;
    private static HttpsUpstream https;
    private static ProxyFixture proxy;
    private static Path trust;
    private static Path work;

    @BeforeAll
    static void start() throws Exception {
        work = Files.createTempDirectory("mesa-egress-agree");
        plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        plain.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "ok\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        plain.start();
        TestPki pki = new TestPki("agree");
        https = new HttpsUpstream(pki.serverContext("open.test", "api.test", "ro.test", "git.test"), "127.0.0.1");
        Path upstreamCa = pki.writeCaPem(work.resolve("upstream-ca.pem"));
        Files.writeString(work.resolve("secrets.yaml"), "api: sk-api-REAL-4f1d2c\ngit: ghs_REAL_git_token_77\n");
        int p = plain.getAddress().getPort();
        int q = https.port();
        String yaml = "profile: P2\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "tls:\n  ca_cert: \"" + work.resolve("ca/ca.pem") + "\"\n  ca_key: \"" + work.resolve("ca/ca.key") + "\"\n"
                + "  upstream_ca: \"" + upstreamCa + "\"\n"
                + "allow:\n"
                + "  - {host: \"open.test\", ports: [" + p + ", " + q + "]}\n"
                + "  - {host: \"*.open.test\", ports: [" + p + "]}\n"
                + "  - {host: \"ro.test\", ports: [" + p + ", " + q + "], methods: [GET], paths: [\"/pub/**\"]}\n"
                + "  - {host: \"10.0.0.0/8\", ports: [" + p + "]}\n"
                + "  - {host: \"api.test\", ports: [" + p + ", " + q + "]}\n"
                + "  - {host: \"git.test\", ports: [" + q + "]}\n"
                + "deny:\n  - host: \"blocked.open.test\"\n"
                + "credentials:\n"
                + "  - {name: api, hosts: [\"api.test\"], ports: [" + q + "], sentinel: \"sk-api-sentinel\", header: \"x-api-key\","
                + " format: \"{secret}\", secret: \"file:" + work.resolve("secrets.yaml") + "#api\"}\n"
                + "  - {name: git, hosts: [\"git.test\"], ports: [" + q + "], sentinel: \"proxy-injected\","
                + " secret: \"file:" + work.resolve("secrets.yaml") + "#git\"}\n";
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        HostResolver testNames = host -> {
            if (host.endsWith(".test")) {
                return List.of(loopback);
            }
            throw new UnknownHostException(host + ": the test resolves only *.test");
        };
        proxy = ProxyFixture.start(yaml, testNames);
        trust = work.resolve("trust.pem");
        Files.writeString(trust, new String(proxy.server().ca().pem(), StandardCharsets.US_ASCII) + Files.readString(upstreamCa));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (proxy.admin("/readyz").statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @AfterAll
    static void stop() throws IOException {
        proxy.close();
        https.close();
        plain.stop(0);
    }

    record Row(String name, String method, String url, List<String> headers) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Row row(String name, String method, String url, String... headers) {
        return new Row(name, method, url, List.of(headers));
    }

    static Stream<Row> rows() {
        int p = plain.getAddress().getPort();
        int q = https.port();
        return Stream.of(
                row("allowed, forwarded", "GET", "http://open.test:" + p + "/x"),
                row("a host of no rule", "GET", "http://nowhere.test:" + p + "/"),
                row("the deny list before the allow list", "GET", "http://blocked.open.test:" + p + "/"),
                row("metadata, hex-spelled", "GET", "http://0xa9fea9fe/latest"),
                row("a port the rule does not list", "GET", "http://open.test:1/"),
                row("a method the rule does not list", "POST", "http://ro.test:" + p + "/pub/a"),
                row("a path the rule does not list", "GET", "http://ro.test:" + p + "/private"),
                row("a private literal an allow rule names", "GET", "http://10.1.2.3:" + p + "/"),
                row("a sentinel in the query, plain http elsewhere", "GET", "http://open.test:" + p + "/?k=sk-api-sentinel"),
                row("plain http to a credential's host without its sentinel", "GET", "http://api.test:" + p + "/"),
                row("CONNECT allowed, opaque", "GET", "https://open.test:" + q + "/echo"),
                row("CONNECT of no rule", "GET", "https://nowhere.test:" + q + "/"),
                row("a host with an underscore and a port", "GET", "https://under_score.test:" + q + "/"),
                row("intercepted, credential injected", "POST", "https://api.test:" + q + "/echo", "x-api-key: sk-api-sentinel"),
                row("intercepted, git's Basic sentinel", "GET", "https://x-access-token:proxy-injected@git.test:" + q + "/echo"),
                row("intercepted, a sentinel headed to another host", "GET",
                        "https://x-access-token:proxy-injected@api.test:" + q + "/echo"),
                row("TRACE to an inspected host", "TRACE", "https://api.test:" + q + "/echo"),
                row("a path refused inside the tunnel", "GET", "https://ro.test:" + q + "/private"),
                row("a path allowed inside the tunnel", "GET", "https://ro.test:" + q + "/pub/echo"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void checkAndTheProxyGiveTheSameVerdict(Row row) throws Exception {
        reset();
        int exit = run("check", "--config", proxy.configFile().toString(), "--method", row.method(), row.url());
        JsonNode check = JSON.readTree(out());
        assertEquals(check.get("decision").asText().equals("allow") ? 0 : 3, exit, out() + err());

        int before = proxy.auditRecords().size();
        curl(row);
        JsonNode audit = proxy.awaitAudit(before + 1).get(before);

        for (String field : List.of("decision", "reason", "rule", "mode", "credential")) {
            assertEquals(check.get(field), audit.get(field), () -> row.name() + ": " + field + " differs\ncheck: " + check
                    + "\naudit: " + audit);
        }
    }

    private static void curl(Row row) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "-o", "/dev/null", "--max-time", "10",
                "-x", "http://127.0.0.1:" + proxy.port(), "--cacert", trust.toString(), "-X", row.method()));
        for (String header : row.headers()) {
            command.add("-H");
            command.add(header);
        }
        command.add(row.url());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(work.resolve("curl.out").toFile()).start();
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), "curl did not finish");
    }
}
