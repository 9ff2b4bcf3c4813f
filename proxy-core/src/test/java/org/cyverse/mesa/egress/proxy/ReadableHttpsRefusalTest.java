package org.cyverse.mesa.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.cyverse.mesa.egress.testkit.Curl;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.Python;
import org.cyverse.mesa.egress.testkit.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refused HTTPS host, as real clients show it (issue 18): with a CA, the refusal is told inside
 * TLS, so curl, Python's urllib and requests, Node and the JDK each get the 403 with its reason and hint; nothing is dialled
 * (the name is never even resolved) and the refusal is audited once. Without it, the CONNECT
 * answer's reason phrase carries the reason.
 */
class ReadableHttpsRefusalTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private final List<String> resolved = new CopyOnWriteArrayList<>();

    private ProxyFixture proxy(String extra) throws IOException {
        return ProxyFixture.start("profile: P2\negress: N2\n" + extra, host -> {
            resolved.add(host);
            return List.of(InetAddress.getByName("127.0.0.1"));
        });
    }

    private Path ca(ProxyFixture proxy) throws IOException {
        Path pem = dir.resolve("ca.pem");
        Files.write(pem, proxy.server().ca().pem());
        return pem;
    }

    @Test
    void curlPythonAndTheJdkReadTheRefusalOfAnHttpsHost() throws Exception {
        try (ProxyFixture proxy = proxy("")) {
            Curl.Result curl = Curl.through(proxy.port(), "--cacert", ca(proxy).toString(), "-i", "https://exfil.example.org/upload");
            assertEquals(0, curl.exit(), curl.err());
            // curl -i prints the proxy's 200 to the CONNECT, then the answer inside the tunnel.
            assertTrue(curl.out().contains("\r\n\r\nHTTP/1.1 403 host_not_allowed: exfil.example.org is not allowed"), curl.out());
            assertTrue(curl.out().contains("X-Mesa-Egress-Reason: host_not_allowed"), curl.out());
            JsonNode body = JSON.readTree(curl.out().substring(curl.out().lastIndexOf("\r\n\r\n") + 4));
            assertEquals("host_not_allowed", body.path("reason").asText());
            assertTrue(body.path("hint").asText().contains("profile P2 does not allow exfil.example.org"), body.toString());

            Python.Result python = Python.through(proxy.port(), ca(proxy), String.join("\n",
                    "import urllib.request, urllib.error, json",
                    "try:",
                    "    urllib.request.urlopen('https://exfil.example.org/', timeout=10)",
                    "except urllib.error.HTTPError as e:",
                    "    print(e.code, e.headers['X-Mesa-Egress-Reason'], json.load(e)['hint'])"));
            assertEquals(0, python.exit(), python.err());
            assertTrue(python.out().startsWith("403 host_not_allowed profile P2 does not allow exfil.example.org"), python.out());

            Python.Result requests = Python.through(proxy.port(), ca(proxy), String.join("\n",
                    "import os, requests",
                    "r = requests.get('https://exfil.example.org/', timeout=10, verify=os.environ['SSL_CERT_FILE'])",
                    "print(r.status_code, r.headers['X-Mesa-Egress-Reason'], r.json()['hint'])"));
            assertEquals(0, requests.exit(), requests.err());
            assertTrue(requests.out().startsWith("403 host_not_allowed profile P2 does not allow exfil.example.org"), requests.out());

            // Node's core modules, as https-proxy-agent drives them: CONNECT, then TLS to the target over that socket.
            Process node = new ProcessBuilder("node", "-e", String.join("\n",
                    "const http = require('http'), tls = require('tls'), fs = require('fs');",
                    "const req = http.request({host: '127.0.0.1', port: " + proxy.port() + ", method: 'CONNECT', path: 'exfil.example.org:443'});",
                    "req.on('connect', (res, socket) => {",
                    "  const t = tls.connect({socket, servername: 'exfil.example.org', ca: fs.readFileSync('" + ca(proxy) + "')}, () =>",
                    "    t.write('GET / HTTP/1.1\\r\\nHost: exfil.example.org\\r\\nConnection: close\\r\\n\\r\\n'));",
                    "  let text = ''; t.on('data', c => text += c);",
                    "  t.on('end', () => { const body = JSON.parse(text.split('\\r\\n\\r\\n')[1]);",
                    "    console.log(text.split('\\r\\n')[0] + ' | ' + body.hint); });",
                    "});",
                    "req.end();")).start();
            String nodeOut = new String(node.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            String nodeErr = new String(node.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(node.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(nodeOut.startsWith("HTTP/1.1 403 host_not_allowed: exfil.example.org is not allowed"), nodeOut + nodeErr);
            assertTrue(nodeOut.contains("| profile P2 does not allow exfil.example.org"), nodeOut);

            HttpResponse<String> jdk = proxy.interceptingClient().send(HttpRequest.newBuilder(URI.create("https://exfil.example.org/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, jdk.statusCode());
            assertEquals("host_not_allowed", JSON.readTree(jdk.body()).path("reason").asText());

            assertEquals(List.of(), resolved, "nothing dialled, not even resolved");
            List<JsonNode> records = proxy.awaitAudit(5);
            Thread.sleep(100);
            assertEquals(5, proxy.auditRecords().size(), "one record per refused CONNECT (five clients), none for the request inside");
            for (JsonNode r : records) {
                assertEquals("tunnel", r.path("mode").asText());
                assertEquals("host_not_allowed", r.path("reason").asText());
                assertEquals(403, r.path("status").asInt());
            }
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCaGetsNothingAndARefusedLiteralStaysAnHttpAnswer() throws Exception {
        try (ProxyFixture proxy = proxy("")) {
            // Without the CA the client's TLS fails: still refused, still audited once.
            assertThrows(IOException.class, () -> proxy.client().send(HttpRequest.newBuilder(URI.create("https://exfil.example.org/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()));
            assertEquals("host_not_allowed", proxy.awaitAudit(1).get(0).path("reason").asText());
            // A CONNECT that is not readable is answered in HTTP, as before.
            try (RawHttp raw = new RawHttp(proxy.port())) {
                RawHttp.Response answer = raw.send("CONNECT not a target HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertEquals(400, answer.status());
            }
        }
    }

    @Test
    void withoutItTheConnectAnswersReasonPhraseNamesTheReason() throws Exception {
        try (ProxyFixture proxy = proxy("tls:\n  explain_refusals: false\n"); RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response answer = raw.send("CONNECT exfil.example.org:443 HTTP/1.1\r\nHost: exfil.example.org:443\r\n\r\n").read();
            assertEquals(403, answer.status());
            assertEquals("HTTP/1.1 403 host_not_allowed: exfil.example.org is not allowed by this sandbox's egress policy",
                    answer.statusLine());
            Curl.Result curl = Curl.through(proxy.port(), "--cacert", ca(proxy).toString(), "https://exfil.example.org/");
            assertFalse(curl.exit() == 0, "curl shows the CONNECT failure: " + curl.err());
        }
    }
}
