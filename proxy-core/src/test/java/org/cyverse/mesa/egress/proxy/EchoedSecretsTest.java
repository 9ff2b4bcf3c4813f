package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.cyverse.mesa.egress.proxy.observe.LogRedaction;
import org.cyverse.mesa.egress.testkit.EchoUpstream;
import org.cyverse.mesa.egress.testkit.EchoUpstream.RawMessages;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An upstream that echoes every request byte for byte, through interception (issue 17, items 2-4):
 * every form in which the proxy wrote a secret comes back to the client as the client's own
 * spelling; a chunked request's trailer fields are judged as header fields and refused when they
 * must be; and no field of the audit log and no log line holds a secret in any letter case,
 * whatever refused the request.
 */
class EchoedSecretsTest {

    /** Has characters the proxy percent-encodes in a URI ({@code / + =}). */
    static final String GIT = "ghs_Echo/Token+42=abcXYZ";
    static final String API = "sk-live-echo-7f3a9b";
    static final String GIT_BASIC_SENTINEL = b64("x-access-token:proxy-injected");

    @TempDir
    static Path dir;

    private static EchoUpstream echo;
    private static ProxyFixture proxy;
    private static javax.net.ssl.SSLSocketFactory tls;
    private static final StringBuilder log = new StringBuilder();
    private static final Handler capture = new Handler() {
        private final java.util.logging.Formatter format = LogRedaction.formatter(new SimpleFormatter());

        @Override
        public synchronized void publish(LogRecord record) {
            log.append(format.format(record));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeAll
    static void start() throws Exception {
        Logger.getLogger("").addHandler(capture);
        capture.setLevel(Level.ALL);
        Logger.getLogger("org.cyverse").setLevel(Level.FINE);
        TestPki pki = new TestPki("echo");
        echo = new EchoUpstream(pki.serverContext("localhost", "127.0.0.1"));
        Path ca = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "git: \"" + GIT + "\"\napi: \"" + API + "\"\n");
        int port = echo.port();
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + ca + "\"\n  intercept: all\n"
                + "allow:\n  - host: \"localhost\"\n    ports: [" + port + "]\n  - host: \"*.example.org\"\n    ports: [443]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: git\n    hosts: [\"localhost\"]\n    ports: [" + port + "]\n    sentinel: \"proxy-injected\"\n"
                + "    secret: \"file:" + secrets + "#git\"\n"
                + "  - name: api\n    hosts: [\"localhost\"]\n    ports: [" + port + "]\n    paths: [\"/api/**\"]\n"
                + "    sentinel: \"sk-api-sentinel\"\n    header: \"x-api-key\"\n    format: \"token={secret};v=1\"\n"
                + "    secret: \"file:" + secrets + "#api\"\n");
        proxy.awaitReady(java.time.Duration.ofSeconds(5));
        tls = TestPki.trusting(proxy.server().ca().certificate()).getSocketFactory();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            proxy.close();
            String everything = (log + proxy.auditText()).toLowerCase(Locale.ROOT);
            for (String form : forms()) {
                assertFalse(everything.contains(form.toLowerCase(Locale.ROOT)), "a secret (" + form.length() + " chars) reached the log or the audit");
            }
            assertEquals(API, LogRedaction.redact(API), "a stopped proxy takes its values out of the log redaction");
        } finally {
            Logger.getLogger("").removeHandler(capture);
            echo.close();
        }
    }

    /** Every spelling of a real secret that must never reach the client, the audit or a log line. */
    private static List<String> forms() {
        String encoded = "ghs_Echo%2FToken%2B42%3DabcXYZ";
        return List.of(GIT, encoded, encoded.toLowerCase(Locale.ROOT), b64("x-access-token:" + GIT), GIT.replace("/", "\\/"), API);
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A CONNECT to the echo upstream, and TLS with the proxy's leaf inside it. */
    private static SSLSocket intercepted(RawHttp raw) throws Exception {
        assertEquals(200, raw.send("CONNECT localhost:" + echo.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
        SSLSocket socket = (SSLSocket) tls.createSocket(raw.socket(), "localhost", echo.port(), false);
        socket.startHandshake();
        return socket;
    }

    /** Sends {@code request} inside a fresh intercepted tunnel; the whole response as it came, framing and trailers included. */
    private static String exchange(String request) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            SSLSocket socket = intercepted(raw);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = RawMessages.head(in);
            return head + "\r\n\r\n" + RawMessages.body(in, head);
        }
    }

    private static EchoUpstream.Seen seen(String pathStart) {
        return echo.seen().stream().filter(s -> s.target().startsWith(pathStart)).findFirst().orElse(null);
    }

    private static void assertNoSecretForm(String text) {
        for (String form : forms()) {
            assertFalse(text.contains(form), "the client got back a secret (" + form.length() + " chars): " + text);
        }
    }

    @Test
    void aSecretThePathTheQueryAndBasicCredentialsCarriedComesBackAsTheClientsOwnSpelling() throws Exception {
        String response = exchange("GET /repo/proxy-injected/info/refs?token=proxy-injected HTTP/1.1\r\nHost: localhost:" + echo.port()
                + "\r\nAuthorization: Basic " + GIT_BASIC_SENTINEL + "\r\n\r\n");

        EchoUpstream.Seen seen = seen("/repo/");
        assertEquals("/repo/ghs_Echo%2FToken%2B42%3DabcXYZ/info/refs?token=ghs_Echo%2FToken%2B42%3DabcXYZ", seen.target(),
                "the upstream got the real token, percent-encoded");
        assertEquals("Basic " + b64("x-access-token:" + GIT), RawMessages.field(seen.head(), "authorization"));

        assertTrue(response.startsWith("HTTP/1.1 200"), response);
        assertNoSecretForm(response);
        String asSent = "/repo/proxy-injected/info/refs?token=proxy-injected";
        assertEquals(asSent, RawMessages.field(response, "location"), "a header echoing the target");
        assertTrue(response.contains("GET " + asSent + " HTTP/1.1"), "the body echoing the request line: " + response);
        assertTrue(response.contains("X-Echo-Auth: Basic " + GIT_BASIC_SENTINEL + "\r\n"), "the trailer echoing Basic: " + response);
        assertTrue(response.contains("X-Echo-Uri: " + asSent + "\r\n"), "the trailer echoing the target: " + response);
    }

    @Test
    void aSecretInsideTheCredentialsFormatComesBackAsTheSentinel() throws Exception {
        String response = exchange("GET /api/v1/models HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\n\r\n");

        assertEquals("token=" + API + ";v=1", RawMessages.field(seen("/api/v1/models").head(), "x-api-key"));
        assertNoSecretForm(response);
        assertTrue(response.toLowerCase(Locale.ROOT).contains("x-api-key: token=sk-api-sentinel;v=1"), response);
    }

    @Test
    void aSentinelInATrailerIsReplacedAndTheTrailerGoesOn() throws Exception {
        String response = exchange("POST /trailer/ok HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\nX-Note: proxy-injected\r\nX-Checksum: abc123\r\n\r\n");

        String body = seen("/trailer/ok").body();
        assertTrue(body.contains("hello"), body);
        assertTrue(body.contains("X-Note: " + GIT + "\r\n"), "the upstream got the sentinel replaced: " + body);
        assertTrue(body.contains("X-Checksum: abc123\r\n"), "a field allowed in trailers is passed on: " + body);
        assertTrue(response.startsWith("HTTP/1.1 200"), response);
        assertNoSecretForm(response);
        assertTrue(response.contains("X-Note: proxy-injected"), response);
    }

    @Test
    void basicCredentialsInATrailerComeBackAsTheClientsOwn() throws Exception {
        String sent = b64("trailer-user:proxy-injected");
        String response = exchange("POST /trailer/basic HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\nhi\r\n0\r\nX-Auth: Basic " + sent + "\r\n\r\n");
        assertTrue(seen("/trailer/basic").body().contains("X-Auth: Basic " + b64("trailer-user:" + GIT)), seen("/trailer/basic").body());
        assertFalse(response.contains(b64("trailer-user:" + GIT)), response);
        assertTrue(response.contains("X-Auth: Basic " + sent), response);
    }

    @Test
    void basicCredentialsHoldingTwoSentinelsComeBackWhole() throws Exception {
        // Both credentials cover /api/: the one value is rewritten twice, and must come back as sent, not half.
        String sent = b64("sk-api-sentinel:proxy-injected");
        String response = exchange("GET /api/two HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nAuthorization: Basic " + sent + "\r\n\r\n");
        assertEquals("Basic " + b64(API + ":" + GIT), RawMessages.field(seen("/api/two").head(), "authorization"));
        for (String half : List.of(b64(API + ":proxy-injected"), b64("sk-api-sentinel:" + GIT), b64(API + ":" + GIT))) {
            assertFalse(response.contains(half), "a form naming a real secret came back: " + response);
        }
        assertTrue(response.contains("X-Echo-Auth: Basic " + sent + "\r\n"), response);
    }

    @Test
    void aSlowAnswerIsScrubbedWithTheFormsItsOwnRequestWasWrittenIn() throws Exception {
        String sent = b64("slow-user:proxy-injected");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            SSLSocket socket = intercepted(raw);
            socket.getOutputStream().write(("GET /slow/answer HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nAuthorization: Basic " + sent
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            // Meanwhile more user names than the proxy remembers forms for.
            for (int i = 0; i < 70; i++) {
                exchange("GET /evict/" + i + " HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nAuthorization: Basic "
                        + b64("evict-" + i + ":proxy-injected") + "\r\n\r\n");
            }
            InputStream in = socket.getInputStream();
            String head = RawMessages.head(in);
            String response = head + "\r\n\r\n" + RawMessages.body(in, head);
            assertFalse(response.contains(b64("slow-user:" + GIT)), response);
            assertTrue(response.contains("X-Echo-Auth: Basic " + sent + "\r\n"), response);
        }
    }

    static Stream<Arguments> refusedTrailers() {
        return Stream.of(
                Arguments.of("real-secret", "X-Leak: key " + API, 403, "secret_leak"),
                Arguments.of("real-secret-basic", "X-Auth: Basic " + b64("u:" + GIT), 403, "secret_leak"),
                Arguments.of("sentinel-out-of-scope", "X-Key: sk-api-sentinel", 403, "credential_endpoint_mismatch"),
                Arguments.of("credential-header", "X-Api-Key: mine", 400, "bad_request"),
                Arguments.of("host", "Host: evil.example", 400, "bad_request"),
                Arguments.of("authorization", "Authorization: Bearer other", 400, "bad_request"),
                Arguments.of("content-length", "Content-Length: 5", 400, "bad_request"),
                Arguments.of("transfer-encoding", "Transfer-Encoding: chunked", 400, "bad_request"),
                Arguments.of("if-prefix", "If-Match: \"x\"", 400, "bad_request"),
                Arguments.of("obs-fold", "X-Fold: a\r\n b", 400, "bad_request"),
                Arguments.of("no-colon", "just text", 400, "bad_request"),
                Arguments.of("space-before-colon", "X-Name : v", 400, "bad_request"),
                Arguments.of("control-byte", "X-Ctl: a\u0001b", 400, "bad_request"),
                Arguments.of("bare-lf", "X-Lf: a\nX-B: c", 400, "bad_request"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedTrailers")
    void aTrailerSectionThatMustNotGoOnRefusesTheRequestBeforeAnyOfItLeaves(String name, String trailer, int status, String reason)
            throws Exception {
        String path = "/trailer/" + name;
        String response = exchange("POST " + path + " HTTP/1.1\r\nHost: localhost:" + echo.port() + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n" + trailer + "\r\n\r\n");

        assertEquals(status, Integer.parseInt(response.split(" ")[1]), response);
        assertEquals(reason, RawMessages.field(response, "x-mesa-egress-reason"), response);
        assertEquals(null, seen(path), "the upstream saw nothing of the request");
        assertNoSecretForm(response);
        JsonNode record = proxy.awaitAuditRecord(r -> r.get("path").asText().equals(path));
        assertEquals(reason, record.get("reason").asText());
        assertEquals(status, record.get("status").asInt());
        if (status == 403) {
            assertEquals("trailer", record.get("place").asText());
            assertEquals(name.contains("basic") ? "git" : "api", record.get("credential").asText());
        }
    }

    @Test
    void aRequestRefusedBeforeTheCredentialsStillKeepsEverySecretSpellingOutOfTheAudit() throws Exception {
        List<String> requests = new ArrayList<>();
        // The method, in another letter case: not the secret as the client's key, but still its value.
        requests.add(API.toUpperCase(Locale.ROOT) + " http://nowhere.example.net/ HTTP/1.1\r\nHost: nowhere.example.net\r\n\r\n");
        // A path refused by the policy, the value in mixed case.
        requests.add("GET http://nowhere.example.net/Sk-Live-Echo-7F3A9B/x HTTP/1.1\r\nHost: nowhere.example.net\r\n\r\n");
        // A host name refused for its port.
        requests.add("GET http://" + API + ".example.org:8080/ HTTP/1.1\r\nHost: " + API + ".example.org:8080\r\n\r\n");
        for (String request : requests) {
            try (RawHttp raw = new RawHttp(proxy.port())) {
                RawHttp.Response response = raw.send(request).read();
                assertEquals(403, response.status(), response.body());
                assertFalse(response.body().toLowerCase(Locale.ROOT).contains(API), response.body());
            }
        }
        JsonNode method = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_not_allowed")
                && r.get("method").asText().equals("[redacted:api]"));
        assertEquals("nowhere.example.net", method.get("host").asText(), "only the field holding the value is withheld");
        proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_not_allowed") && r.get("path").asText().startsWith("[redacted"));
        JsonNode port = proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("port_not_allowed"));
        assertEquals("[redacted:api]", port.get("host").asText());
        assertFalse(proxy.auditText().toLowerCase(Locale.ROOT).contains(API), proxy.auditText());
    }

    @Test
    void aTlsServerNameHoldingASecretIsRefusedAndReachesNoLogLine() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("CONNECT localhost:" + echo.port() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status());
            // A context of its own: one that resumes an earlier session sends that session's server name.
            SSLSocket socket = (SSLSocket) TestPki.trusting(proxy.server().ca().certificate()).getSocketFactory()
                    .createSocket(raw.socket(), "localhost", echo.port(), false);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(API.toUpperCase(Locale.ROOT) + ".localhost")));
            socket.setSSLParameters(parameters);
            try {
                socket.startHandshake();
                socket.getInputStream().read();
            } catch (java.io.IOException expected) {
                // the tunnel is closed: the server name is not the CONNECT target
            }
        }
        proxy.awaitAuditRecord(r -> r.get("reason").asText().equals("host_mismatch"));
        synchronized (capture) {
            assertTrue(log.toString().contains("[redacted:api]"), "the refusal was logged, with the value withheld: " + log);
            assertFalse(log.toString().toLowerCase(Locale.ROOT).contains(API), log.toString());
        }
        assertEquals("x [redacted:api] y", LogRedaction.redact("x " + API.toUpperCase(Locale.ROOT) + " y"));
    }
}
