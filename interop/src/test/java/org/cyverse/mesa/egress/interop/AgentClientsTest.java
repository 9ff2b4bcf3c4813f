package org.cyverse.mesa.egress.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.testkit.GitSmartHttpServer;
import org.cyverse.mesa.egress.testkit.H2OnlyUpstream;
import org.cyverse.mesa.egress.testkit.HttpsUpstream;
import org.cyverse.mesa.egress.testkit.ProxyFixture;
import org.cyverse.mesa.egress.testkit.WebSocketUpstream;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent-client matrix (issue 12): every client an agent runs, driven as an agent runs it
 * ({@code HTTPS_PROXY} at the proxy, the CA bundle in the variables SPEC.md names, nothing else
 * set), through an opaque tunnel and intercepted with a credential injected. Intercepted, the
 * upstream must see the real secret and the client never: the upstream's echo of the key comes
 * back as the sentinel. The README's table is {@link #MATRIX}, checked by
 * {@link #theReadmeTableIsThisMatrix}.
 *
 * <p>Upstreams: the JDK's HTTPS server (HTTP/1.1), Netty's WebSocket server, a git smart-HTTP
 * server, all on loopback under names only the proxy resolves ({@value #API} carries the
 * credentials and is intercepted, {@value #OPEN} has none and is tunnelled under
 * {@code tls.intercept: auto}): as for an agent, the client hands the name to the proxy, and no
 * client's own loopback exception (Go never proxies {@code localhost}) gets in the way. The npm packages come from
 * {@code interop/node} ({@code npm ci}, run by {@code bin/test}); Go is Debian's
 * {@code golang-go}.
 */
class AgentClientsTest {

    static final String SECRET = "sk-agent-REAL-0123456789abcdef";
    static final String SENTINEL = "sk-agent-sentinel";
    static final String GIT_TOKEN = "ghs_REAL_git_token_42";
    static final String API = "api.agent.test";
    static final String OPEN = "open.agent.test";

    /** One row of the README's table: a client, how it is driven, and the tests that prove each mode. */
    record Row(String client, String how, String intercepted, String tunnel) {}

    static final List<Row> MATRIX = List.of(
            new Row("curl", "HTTP/1.1 (`--http1.1`)", "curlHttp11", "curlHttp11"),
            new Row("curl", "HTTP/2 (`--http2`)", "curlHttp2", "curlHttp2"),
            new Row("git", "clone and push over smart HTTP, `x-access-token` sentinel", "gitCloneAndPush", "gitCloneAndPush"),
            new Row("Python `urllib`", "`VERIFY_X509_STRICT`, proxy from the environment", "pythonUrllib", "pythonUrllib"),
            new Row("Python `requests`", "proxy and CA from the environment", "pythonRequests", "pythonRequests"),
            new Row("Node `https`", "with `https-proxy-agent` (npm)", "nodeHttps", "nodeHttps"),
            new Row("Node `ws` (npm)", "WebSocket with `https-proxy-agent`", "nodeWs", "nodeWs"),
            new Row("JDK `HttpClient`", "HTTP/1.1", "jdkHttp11", "jdkHttp11"),
            new Row("JDK `HttpClient`", "HTTP/2", "jdkHttp2", "jdkHttp2"),
            new Row("JDK `WebSocket`", "`HttpClient.newWebSocketBuilder`", "jdkWebSocket", "jdkWebSocket"),
            new Row("Go `net/http`", "`HTTPS_PROXY`, HTTP/2 on", "goNetHttp", "goNetHttp"),
            new Row("Go `net/http`", "gRPC framing and trailers to an HTTP/2-only server", "goGrpcFraming", "goGrpcFraming"),
            new Row("Python `boto3`", "S3 put, get, list, delete; `AWS_CA_BUNDLE`; SigV4 re-signed", "boto3S3", "boto3S3"),
            new Row("`aws` CLI", "`aws s3 cp`, `ls`, `rm`; `AWS_CA_BUNDLE`; SigV4 re-signed", "awsCliS3", "awsCliS3"));

    @TempDir
    static Path dir;

    private static TestPki pki;
    private static HttpsUpstream api;
    private static HttpsUpstream open;
    private static WebSocketUpstream wsApi;
    private static WebSocketUpstream wsOpen;
    private static GitSmartHttpServer git;
    private static GitSmartHttpServer gitOpen;
    private static H2OnlyUpstream grpcApi;
    private static H2OnlyUpstream grpcOpen;
    private static S3Server s3Api;
    private static S3Server s3Open;
    static final String S3_SENTINEL_KEY = "SNTLAGENTCLIENTS0001";
    static final String S3_SENTINEL_SECRET = "agent-clients-sentinel-secret-key-01";
    private static ProxyFixture proxy;
    /** The proxy's CA and the upstreams' test CA, as an agent container's bundle would hold them. */
    private static Path bundle;
    private static SSLContext jdkTls;

    @BeforeAll
    static void start() throws Exception {
        pki = new TestPki("agent-clients");
        api = new HttpsUpstream(pki.serverContext(API), "127.0.0.1");
        open = new HttpsUpstream(pki.serverContext(OPEN), "127.0.0.1");
        wsApi = new WebSocketUpstream(pki.serverContext(API));
        wsOpen = new WebSocketUpstream(pki.serverContext(OPEN));
        git = GitSmartHttpServer.start(Files.createDirectories(dir.resolve("git")), pki.serverContext(API), "x-access-token", GIT_TOKEN);
        git.createRepository("repo.git");
        gitOpen = GitSmartHttpServer.start(Files.createDirectories(dir.resolve("git-open")), pki.serverContext(OPEN), "agent", "own-password");
        gitOpen.createRepository("repo.git");
        grpcApi = new H2OnlyUpstream(pki.serverContext(API));
        grpcOpen = new H2OnlyUpstream(pki.serverContext(OPEN));
        s3Api = new S3Server(pki.serverContext(API), Files.createDirectories(dir.resolve("s3-api")));
        s3Open = new S3Server(pki.serverContext(OPEN), Files.createDirectories(dir.resolve("s3-open")));
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        Path secrets = dir.resolve("secrets.yaml");
        Files.writeString(secrets, "api: \"" + SECRET + "\"\ngit: \"" + GIT_TOKEN + "\"\ns3: \"" + S3Server.SECRET_ACCESS_KEY + "\"\n");
        proxy = ProxyFixture.start("profile: P2\n"
                + "tls:\n  upstream_ca: \"" + upstreamCa + "\"\n  intercept: auto\n  http2: true\n"
                + "allow:\n"
                + "  - host: \"" + API + "\"\n    ports: [" + api.port() + ", " + wsApi.port() + ", " + git.port() + ", " + grpcApi.port() + ", " + s3Api.httpsPort() + "]\n"
                + "  - host: \"" + OPEN + "\"\n    ports: [" + open.port() + ", " + wsOpen.port() + ", " + gitOpen.port() + ", " + grpcOpen.port()
                + ", " + s3Open.httpsPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n"
                + "credentials:\n"
                + "  - name: api\n    hosts: [\"" + API + "\"]\n    ports: [" + api.port() + ", " + wsApi.port() + ", " + grpcApi.port() + "]\n"
                + "    sentinel: \"" + SENTINEL + "\"\n    header: \"x-api-key\"\n    format: \"{secret}\"\n"
                + "    secret: \"file:" + secrets + "#api\"\n"
                + "  - name: git\n    hosts: [\"" + API + "\"]\n    ports: [" + git.port() + "]\n"
                + "    sentinel: \"proxy-injected\"\n    secret: \"file:" + secrets + "#git\"\n"
                + "  - name: osn\n    hosts: [\"" + API + "\"]\n    ports: [" + s3Api.httpsPort() + "]\n"
                + "    aws_sigv4:\n      sentinel_access_key_id: " + S3_SENTINEL_KEY + "\n      sentinel_secret_access_key: "
                + S3_SENTINEL_SECRET + "\n      access_key_id: " + S3Server.ACCESS_KEY_ID + "\n      secret_access_key: \"file:" + secrets
                + "#s3\"\n",
                host -> host.endsWith(".agent.test") ? List.of(java.net.InetAddress.getLoopbackAddress()) : HostResolver.SYSTEM.resolve(host));
        proxy.awaitReady(Duration.ofSeconds(5));
        bundle = dir.resolve("ca-bundle.pem");
        Files.writeString(bundle, proxy.admin("/ca.pem").body() + "\n" + Files.readString(upstreamCa));
        jdkTls = trusting(bundle);
    }

    @AfterAll
    static void stop() throws Exception {
        String audit = proxy.auditText();
        proxy.close();
        api.close();
        open.close();
        wsApi.close();
        wsOpen.close();
        git.close();
        gitOpen.close();
        grpcApi.close();
        grpcOpen.close();
        s3Api.close();
        s3Open.close();
        assertFalse(audit.contains(SECRET) || audit.contains(GIT_TOKEN) || audit.contains(S3Server.SECRET_ACCESS_KEY),
                "a secret reached the audit log");
    }

    private static SSLContext trusting(Path pem) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        try (var in = Files.newInputStream(pem)) {
            for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca" + i++, (X509Certificate) cert);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    // ---- running an agent's process ------------------------------------------------------------

    record Run(int exit, String out, String err) {
        String all() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    /** {@code command} with the environment SPEC.md gives an agent (no other proxy variable, nothing excluded from proxying). */
    static Run agent(Path workdir, Map<String, String> extra, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(workdir.toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy") || k.startsWith("SSL_CERT") || k.endsWith("_CA_BUNDLE")
                || k.equals("NODE_EXTRA_CA_CERTS") || k.equals("GIT_SSL_CAINFO"));
        String url = "http://127.0.0.1:" + proxy.port();
        for (String name : List.of("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")) {
            env.put(name, url);
        }
        for (String name : List.of("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO")) {
            env.put(name, bundle.toString());
        }
        env.putAll(extra);
        Process process = builder.start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        String out = read(process.getInputStream());
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Run(-1, out, "[killed after 60 s]");
        }
        return new Run(process.exitValue(), out, err.join());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String apiUrl(String path) {
        return "https://" + API + ":" + api.port() + path;
    }

    private static String openUrl(String path) {
        return "https://" + OPEN + ":" + open.port() + path;
    }

    /** Intercepted: the upstream saw the real key for {@code path}, and what the client printed holds the sentinel, never the key. */
    private static void injectedAndScrubbed(String path, Run run) {
        assertEquals(0, run.exit(), run.all());
        HttpsUpstream.Seen seen = api.seen().stream().filter(s -> s.uri().startsWith(path)).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("the upstream never saw " + path + "\n" + run.all()));
        assertEquals(SECRET, seen.header("x-api-key"), "the upstream got the real key");
        // The JDK's server echoes field names capitalized (X-api-key): compare without case.
        assertTrue(run.out().toLowerCase().contains("x-api-key: " + SENTINEL), "the echoed key came back as the sentinel:\n" + run.all());
        assertFalse(run.out().contains(SECRET) || run.err().contains(SECRET), "the client saw the real key:\n" + run.all());
    }

    /** Tunnelled: the upstream saw the client's own request for {@code path}, and the proxy recorded a tunnel. */
    private static void tunnelled(String path, Run run) throws InterruptedException {
        assertEquals(0, run.exit(), run.all());
        assertTrue(open.seen().stream().anyMatch(s -> s.uri().startsWith(path)), "the upstream never saw " + path + "\n" + run.all());
        assertTrue(run.out().contains("GET " + path), run.all());
        JsonNode tunnel = proxy.awaitAuditRecord(r -> "tunnel".equals(r.path("mode").asText()) && r.path("port").asInt() == open.port());
        assertEquals("allow", tunnel.get("decision").asText());
    }

    // ---- curl ---------------------------------------------------------------------------------

    @Test
    void curlHttp11() throws Exception {
        Run in = agent(dir, Map.of(), "curl", "-sS", "--max-time", "20", "--http1.1", "-H", "x-api-key: " + SENTINEL, "-w",
                "\nproto=%{http_version}", apiUrl("/echo/curl11"));
        injectedAndScrubbed("/echo/curl11", in);
        assertTrue(in.out().endsWith("proto=1.1"), in.all());
        tunnelled("/echo/curl11-tunnel", agent(dir, Map.of(), "curl", "-sS", "--max-time", "20", "--http1.1",
                openUrl("/echo/curl11-tunnel")));
    }

    @Test
    void curlHttp2() throws Exception {
        Run in = agent(dir, Map.of(), "curl", "-sS", "--max-time", "20", "--http2", "-H", "x-api-key: " + SENTINEL, "-w",
                "\nproto=%{http_version}", apiUrl("/echo/curl2"));
        injectedAndScrubbed("/echo/curl2", in);
        assertTrue(in.out().endsWith("proto=2"), "HTTP/2 with the proxy:\n" + in.all());
        tunnelled("/echo/curl2-tunnel", agent(dir, Map.of(), "curl", "-sS", "--max-time", "20", "--http2", openUrl("/echo/curl2-tunnel")));
    }

    // ---- git ----------------------------------------------------------------------------------

    @Test
    void gitCloneAndPush() throws Exception {
        Map<String, String> env = Map.of("HOME", dir.toString(), "GIT_TERMINAL_PROMPT", "0", "GIT_CONFIG_NOSYSTEM", "1",
                "GIT_AUTHOR_NAME", "agent", "GIT_AUTHOR_EMAIL", "agent@example.invalid", "GIT_COMMITTER_NAME", "agent",
                "GIT_COMMITTER_EMAIL", "agent@example.invalid");
        Path work = Files.createTempDirectory(dir, "git-in");
        String url = "https://x-access-token:proxy-injected@" + API + ":" + git.port() + "/repo.git";
        Run clone = agent(work, env, "git", "clone", "-q", url, "clone");
        assertEquals(0, clone.exit(), clone.all());
        Path clonePath = work.resolve("clone");
        Files.writeString(clonePath.resolve("agent.txt"), "from the agent\n");
        assertEquals(0, agent(clonePath, env, "git", "add", "agent.txt").exit());
        assertEquals(0, agent(clonePath, env, "git", "commit", "-q", "-m", "agent").exit());
        Run push = agent(clonePath, env, "git", "push", "-q", "origin", "HEAD:refs/heads/agent");
        assertEquals(0, push.exit(), push.all());
        assertTrue(git.refs("repo.git").containsKey("refs/heads/agent"), "the push arrived");
        // git asks without credentials first (401), then with the URL's: every one of those carried the real token.
        String real = "Basic " + java.util.Base64.getEncoder().encodeToString(("x-access-token:" + GIT_TOKEN).getBytes(StandardCharsets.UTF_8));
        assertTrue(git.seen().stream().filter(s -> s.authorization() != null).allMatch(s -> s.authorization().equals(real) && s.status() == 200),
                "every request with credentials carried the real token: " + git.seen());
        assertFalse((clone.all() + push.all()).contains(GIT_TOKEN), "git saw the real token");

        Path tunnelWork = Files.createTempDirectory(dir, "git-tunnel");
        Run tunnelClone = agent(tunnelWork, env, "git", "clone", "-q", "https://agent:own-password@" + OPEN + ":" + gitOpen.port() + "/repo.git", "c");
        assertEquals(0, tunnelClone.exit(), tunnelClone.all());
        assertTrue(Files.exists(tunnelWork.resolve("c/.git")));
    }

    // ---- Python -------------------------------------------------------------------------------

    @Test
    void pythonUrllib() throws Exception {
        String script = String.join("\n",
                "import os, ssl, sys, urllib.request",
                "ctx = ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])",
                "ctx.verify_flags |= ssl.VERIFY_X509_STRICT",
                "opener = urllib.request.build_opener(urllib.request.ProxyHandler(), urllib.request.HTTPSHandler(context=ctx))",
                "req = urllib.request.Request(sys.argv[1], headers={'x-api-key': sys.argv[2]} if sys.argv[2] else {})",
                "print(opener.open(req, timeout=20).read().decode())");
        injectedAndScrubbed("/echo/urllib", agent(dir, Map.of(), "python3", "-c", script, apiUrl("/echo/urllib"), SENTINEL));
        tunnelled("/echo/urllib-tunnel", agent(dir, Map.of(), "python3", "-c", script, openUrl("/echo/urllib-tunnel"), ""));
    }

    @Test
    void pythonRequests() throws Exception {
        String script = String.join("\n",
                "import sys, requests",
                "r = requests.get(sys.argv[1], headers={'x-api-key': sys.argv[2]} if sys.argv[2] else {}, timeout=20)",
                "r.raise_for_status()",
                "print(r.text)");
        injectedAndScrubbed("/echo/requests", agent(dir, Map.of(), "python3", "-c", script, apiUrl("/echo/requests"), SENTINEL));
        tunnelled("/echo/requests-tunnel", agent(dir, Map.of(), "python3", "-c", script, openUrl("/echo/requests-tunnel"), ""));
    }

    // ---- Node ---------------------------------------------------------------------------------

    /** {@code NODE_PATH} for the npm packages of {@code interop/node}; fails, naming the fix, when they were not installed. */
    private static Map<String, String> nodeModules() {
        Path modules = Path.of("node", "node_modules").toAbsolutePath();
        assertTrue(Files.isDirectory(modules.resolve("ws")) && Files.isDirectory(modules.resolve("https-proxy-agent")),
                modules + " lacks ws or https-proxy-agent: run `npm ci --prefix interop/node` (bin/test does)");
        return Map.of("NODE_PATH", modules.toString());
    }

    @Test
    void nodeHttps() throws Exception {
        String script = String.join("\n",
                "const https = require('https');",
                "const { HttpsProxyAgent } = require('https-proxy-agent');",
                "const headers = process.argv[2] ? { 'x-api-key': process.argv[2] } : {};",
                "https.get(process.argv[1], { agent: new HttpsProxyAgent(process.env.HTTPS_PROXY), headers }, res => {",
                "  let body = ''; res.on('data', d => body += d);",
                "  res.on('end', () => { console.log(body); process.exit(res.statusCode === 200 ? 0 : 1); });",
                "}).on('error', e => { console.error(e); process.exit(1); });");
        injectedAndScrubbed("/echo/node", agent(dir, nodeModules(), "node", "-e", script, apiUrl("/echo/node"), SENTINEL));
        tunnelled("/echo/node-tunnel", agent(dir, nodeModules(), "node", "-e", script, openUrl("/echo/node-tunnel"), ""));
    }

    @Test
    void nodeWs() throws Exception {
        String script = String.join("\n",
                "const WebSocket = require('ws');",
                "const { HttpsProxyAgent } = require('https-proxy-agent');",
                "const headers = process.argv[3] ? { 'x-api-key': process.argv[3] } : {};",
                "const ws = new WebSocket(process.argv[1], { agent: new HttpsProxyAgent(process.env.HTTPS_PROXY), headers });",
                "ws.on('open', () => ws.send(process.argv[2]));",
                "ws.on('message', m => { console.log('got ' + m); ws.close(1000, 'done'); });",
                "ws.on('close', code => { console.log('closed ' + code); process.exit(code === 1000 ? 0 : 1); });",
                "ws.on('error', e => { console.error(e); process.exit(1); });");
        Run in = agent(dir, nodeModules(), "node", "-e", script, "wss://" + API + ":" + wsApi.port() + "/echo/node-ws", "echo-key", SENTINEL);
        assertEquals(0, in.exit(), in.all());
        assertTrue(in.out().contains("got yours is " + SENTINEL + " ok"), "the upstream's echo of the real key is scrubbed:\n" + in.all());
        assertEquals(SECRET, wsApi.handshakes().stream().filter(h -> h.uri().equals("/echo/node-ws")).findFirst().orElseThrow()
                .headers().get("x-api-key"), "the handshake carried the real key upstream");
        assertTrue(in.out().contains("closed 1000"), in.all());
        Run tunnel = agent(dir, nodeModules(), "node", "-e", script, "wss://" + OPEN + ":" + wsOpen.port() + "/echo/node-ws-tunnel", "hello", "");
        assertEquals(0, tunnel.exit(), tunnel.all());
        assertTrue(tunnel.out().contains("got hello"), tunnel.all());
    }

    // ---- the JDK ------------------------------------------------------------------------------

    private static HttpClient jdk(HttpClient.Version version) {
        return HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxy.port()))).sslContext(jdkTls)
                .version(version).connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static Run jdkGet(HttpClient.Version version, String url, boolean sentinel) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (sentinel) {
            request.header("x-api-key", SENTINEL);
        }
        HttpResponse<String> response = jdk(version).send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Run(response.statusCode() == 200 ? 0 : response.statusCode(), response.body() + "\nproto=" + response.version(), "");
    }

    @Test
    void jdkHttp11() throws Exception {
        Run in = jdkGet(HttpClient.Version.HTTP_1_1, apiUrl("/echo/jdk11"), true);
        injectedAndScrubbed("/echo/jdk11", in);
        assertTrue(in.out().endsWith("proto=HTTP_1_1"), in.all());
        tunnelled("/echo/jdk11-tunnel", jdkGet(HttpClient.Version.HTTP_1_1, openUrl("/echo/jdk11-tunnel"), false));
    }

    @Test
    void jdkHttp2() throws Exception {
        Run in = jdkGet(HttpClient.Version.HTTP_2, apiUrl("/echo/jdk2"), true);
        injectedAndScrubbed("/echo/jdk2", in);
        assertTrue(in.out().endsWith("proto=HTTP_2"), "HTTP/2 with the proxy:\n" + in.all());
        tunnelled("/echo/jdk2-tunnel", jdkGet(HttpClient.Version.HTTP_2, openUrl("/echo/jdk2-tunnel"), false));
    }

    @Test
    void jdkWebSocket() throws Exception {
        assertEquals("yours is " + SENTINEL + " ok", jdkWebSocketSays("wss://" + API + ":" + wsApi.port() + "/echo/jdk-ws", "echo-key", true));
        assertEquals(SECRET, wsApi.handshakes().stream().filter(h -> h.uri().equals("/echo/jdk-ws")).findFirst().orElseThrow()
                .headers().get("x-api-key"));
        assertEquals("hello", jdkWebSocketSays("wss://" + OPEN + ":" + wsOpen.port() + "/echo/jdk-ws-tunnel", "hello", false));
    }

    private static String jdkWebSocketSays(String url, String send, boolean sentinel) throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        WebSocket.Builder builder = jdk(HttpClient.Version.HTTP_1_1).newWebSocketBuilder();
        if (sentinel) {
            builder.header("x-api-key", SENTINEL);
        }
        WebSocket socket = builder.buildAsync(URI.create(url), new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    answer.complete(text.toString());
                }
                webSocket.request(1);
                return null;
            }
        }).get(20, TimeUnit.SECONDS);
        socket.sendText(send, true).get(10, TimeUnit.SECONDS);
        String said = answer.get(10, TimeUnit.SECONDS);
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(10, TimeUnit.SECONDS);
        return said;
    }

    // ---- Go -----------------------------------------------------------------------------------

    @Test
    void goNetHttp() throws Exception {
        Path src = goSource("goclient", String.join("\n",
                "package main",
                "",
                "import (",
                "\t\"fmt\"",
                "\t\"io\"",
                "\t\"net/http\"",
                "\t\"os\"",
                ")",
                "",
                "func main() {",
                "\treq, _ := http.NewRequest(\"GET\", os.Args[1], nil)",
                "\tif os.Args[2] != \"\" {",
                "\t\treq.Header.Set(\"x-api-key\", os.Args[2])",
                "\t}",
                "\tresp, err := http.DefaultClient.Do(req) // DefaultTransport: ProxyFromEnvironment, HTTP/2 attempted",
                "\tif err != nil {",
                "\t\tfmt.Fprintln(os.Stderr, err)",
                "\t\tos.Exit(1)",
                "\t}",
                "\tbody, _ := io.ReadAll(resp.Body)",
                "\tfmt.Print(string(body))",
                "\tfmt.Printf(\"\\nproto=%s\", resp.Proto)",
                "\tif resp.StatusCode != 200 {",
                "\t\tos.Exit(2)",
                "\t}",
                "}", ""));
        Map<String, String> env = goEnv();
        String client = goBuild(src, env);
        Run in = agent(src, env, client, apiUrl("/echo/go"), SENTINEL);
        injectedAndScrubbed("/echo/go", in);
        assertTrue(in.out().endsWith("proto=HTTP/2.0"), "HTTP/2 with the proxy:\n" + in.all());
        tunnelled("/echo/go-tunnel", agent(src, env, client, openUrl("/echo/go-tunnel"), ""));
    }

    /**
     * Go's HTTP/2 client writing what a gRPC client writes (a length-prefixed message,
     * {@code application/grpc}, {@code TE: trailers}) to a server that speaks only HTTP/2, and
     * reading the answer's message and its trailers ({@code grpc-status}). Intercepted, the
     * proxy speaks HTTP/2 on both sides, injects the key, and scrubs the trailer that quotes it;
     * tunnelled, Go and the server speak HTTP/2 to each other through the CONNECT.
     */
    @Test
    void goGrpcFraming() throws Exception {
        Path src = goSource("gogrpc", String.join("\n",
                "package main",
                "",
                "import (",
                "\t\"bytes\"",
                "\t\"encoding/binary\"",
                "\t\"fmt\"",
                "\t\"io\"",
                "\t\"net/http\"",
                "\t\"os\"",
                ")",
                "",
                "func main() {",
                "\tmsg := []byte(\"hello from go\")",
                "\tframe := append([]byte{0, 0, 0, 0, 0}, msg...)",
                "\tbinary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))",
                "\treq, _ := http.NewRequest(\"POST\", os.Args[1], bytes.NewReader(frame))",
                "\treq.Header.Set(\"content-type\", \"application/grpc\")",
                "\treq.Header.Set(\"te\", \"trailers\")",
                "\tif os.Args[2] != \"\" {",
                "\t\treq.Header.Set(\"x-api-key\", os.Args[2])",
                "\t}",
                "\tresp, err := http.DefaultClient.Do(req)",
                "\tif err != nil {",
                "\t\tfmt.Fprintln(os.Stderr, err)",
                "\t\tos.Exit(1)",
                "\t}",
                "\tbody, _ := io.ReadAll(resp.Body) // the trailers are there once the body is read",
                "\tif len(body) < 5 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {",
                "\t\tfmt.Fprintf(os.Stderr, \"not one gRPC message: %q\\n\", body)",
                "\t\tos.Exit(3)",
                "\t}",
                "\tfmt.Printf(\"message=%s\\ngrpc-status=%s\\nx-echo-key=%s\\nproto=%s\", body[5:], resp.Trailer.Get(\"grpc-status\"),",
                "\t\tresp.Trailer.Get(\"x-echo-key\"), resp.Proto)",
                "}", ""));
        Map<String, String> env = goEnv();
        String client = goBuild(src, env);

        Run in = agent(src, env, client, "https://" + API + ":" + grpcApi.port() + "/echo.Echo/Say", SENTINEL);
        assertEquals(0, in.exit(), in.all());
        assertEquals("message=you said: hello from go\ngrpc-status=0\nx-echo-key=" + SENTINEL + "\nproto=HTTP/2.0", in.out(),
                "the message, its trailers (the one quoting the key scrubbed), over HTTP/2");
        H2OnlyUpstream.Seen seen = grpcApi.seen();
        assertEquals(SECRET, seen.header("x-api-key"), "the upstream got the real key");
        assertEquals("trailers", seen.header("te"));
        assertEquals("hello from go", H2OnlyUpstream.grpcMessage(seen.body()));
        JsonNode record = proxy.awaitAuditRecord(r -> r.path("port").asInt() == grpcApi.port() && "/echo.Echo/Say".equals(r.path("path").asText()));
        assertEquals("h2", record.get("protocol").asText());
        assertEquals("api", record.get("credential").asText());

        Run tunnel = agent(src, env, client, "https://" + OPEN + ":" + grpcOpen.port() + "/echo.Echo/Say", "");
        assertEquals(0, tunnel.exit(), tunnel.all());
        assertTrue(tunnel.out().startsWith("message=you said: hello from go\ngrpc-status=0\n"), tunnel.all());
        assertTrue(tunnel.out().endsWith("proto=HTTP/2.0"), tunnel.all());
        JsonNode opaque = proxy.awaitAuditRecord(r -> "tunnel".equals(r.path("mode").asText()) && r.path("port").asInt() == grpcOpen.port());
        assertEquals("allow", opaque.get("decision").asText());
    }

    // ---- S3: boto3 and the aws CLI -----------------------------------------------------------

    /**
     * What an S3 client is given: the sentinel key pair when intercepted (the proxy re-signs with
     * the real one, which the server alone accepts), the real pair through a tunnel (nothing in
     * the way); the CA bundle as {@code AWS_CA_BUNDLE}, which botocore reads (not SSL_CERT_FILE).
     */
    private static Map<String, String> s3Env(boolean intercepted) {
        Map<String, String> env = new HashMap<>(Map.of("HOME", dir.toString(), "AWS_CA_BUNDLE", bundle.toString(),
                "AWS_EC2_METADATA_DISABLED", "true", "AWS_SHARED_CREDENTIALS_FILE", dir.resolve("no-credentials").toString(),
                "AWS_DEFAULT_REGION", "us-east-1"));
        env.put("AWS_ACCESS_KEY_ID", intercepted ? S3_SENTINEL_KEY : S3Server.ACCESS_KEY_ID);
        env.put("AWS_SECRET_ACCESS_KEY", intercepted ? S3_SENTINEL_SECRET : S3Server.SECRET_ACCESS_KEY);
        return env;
    }

    /** The S3 server was reached intercepted, each request re-signed under the {@code osn} credential; or through a tunnel. */
    private static void s3Audited(boolean intercepted, int port) throws InterruptedException {
        JsonNode record = proxy.awaitAuditRecord(r -> r.path("port").asInt() == port
                && (intercepted ? "PUT".equals(r.path("method").asText()) : "tunnel".equals(r.path("mode").asText())));
        if (intercepted) {
            assertEquals("osn", record.get("credential").asText());
            assertEquals(200, record.get("status").asInt());
        } else {
            assertEquals("allow", record.get("decision").asText());
        }
    }

    @Test
    void boto3S3() throws Exception {
        List<String> pythons = S3ThroughProxyTest.boto3Pythons();
        assertFalse(pythons.isEmpty(), "no python3 with boto3: install python3-boto3 (bin/test does, as root)");
        String script = String.join("\n",
                "import sys, boto3",
                "from botocore.config import Config",
                "s = boto3.client('s3', endpoint_url=sys.argv[1], config=Config(s3={'addressing_style': 'path'}))",
                "s.create_bucket(Bucket=sys.argv[2])",
                "s.put_object(Bucket=sys.argv[2], Key='from boto3.txt', Body=b'hello from boto3')",
                "assert s.get_object(Bucket=sys.argv[2], Key='from boto3.txt')['Body'].read() == b'hello from boto3'",
                "assert [o['Key'] for o in s.list_objects_v2(Bucket=sys.argv[2])['Contents']] == ['from boto3.txt']",
                "s.delete_object(Bucket=sys.argv[2], Key='from boto3.txt')",
                "print('ok boto3', boto3.__version__)");
        for (boolean intercepted : List.of(true, false)) {
            String endpoint = intercepted ? "https://" + API + ":" + s3Api.httpsPort() : "https://" + OPEN + ":" + s3Open.httpsPort();
            Run run = agent(dir, s3Env(intercepted), pythons.get(0), "-c", script, endpoint, intercepted ? "boto-in" : "boto-tunnel");
            assertEquals(0, run.exit(), run.all());
            assertTrue(run.out().startsWith("ok boto3"), run.all());
            s3Audited(intercepted, intercepted ? s3Api.httpsPort() : s3Open.httpsPort());
        }
    }

    @Test
    void awsCliS3() throws Exception {
        Path file = dir.resolve("aws-upload.txt");
        Files.writeString(file, "hello from the aws CLI\n".repeat(1000));
        Path config = dir.resolve("aws-config");
        Files.writeString(config, "[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n");
        for (boolean intercepted : List.of(true, false)) {
            String endpoint = intercepted ? "https://" + API + ":" + s3Api.httpsPort() : "https://" + OPEN + ":" + s3Open.httpsPort();
            String bucket = intercepted ? "cli-in" : "cli-tunnel";
            Map<String, String> env = s3Env(intercepted);
            env.put("AWS_CONFIG_FILE", config.toString());
            Run mb = agent(dir, env, "aws", "s3", "mb", "s3://" + bucket, "--endpoint-url", endpoint);
            assertEquals(0, mb.exit(), mb.all());
            Run up = agent(dir, env, "aws", "s3", "cp", file.toString(), "s3://" + bucket + "/up.txt", "--endpoint-url", endpoint);
            assertEquals(0, up.exit(), up.all());
            Path back = dir.resolve(bucket + ".back");
            Run down = agent(dir, env, "aws", "s3", "cp", "s3://" + bucket + "/up.txt", back.toString(), "--endpoint-url", endpoint);
            assertEquals(0, down.exit(), down.all());
            assertEquals(Files.readString(file), Files.readString(back));
            Run ls = agent(dir, env, "aws", "s3", "ls", "s3://" + bucket + "/", "--endpoint-url", endpoint);
            assertTrue(ls.out().contains("up.txt"), ls.all());
            Run rm = agent(dir, env, "aws", "s3", "rm", "s3://" + bucket + "/up.txt", "--endpoint-url", endpoint);
            assertEquals(0, rm.exit(), rm.all());
            s3Audited(intercepted, intercepted ? s3Api.httpsPort() : s3Open.httpsPort());
        }
    }

    /** Go's build and run environment, in the test's directory (GOPATH mode: the programs use the standard library only). */
    private static Map<String, String> goEnv() {
        return new HashMap<>(Map.of("HOME", dir.toString(), "GOCACHE", dir.resolve("gocache").toString(),
                "GOPATH", dir.resolve("gopath").toString(), "GO111MODULE", "off"));
    }

    /** Writes {@code program} as {@code main.go} in a directory {@code name} of its own; that directory. */
    private static Path goSource(String name, String program) throws IOException {
        Path src = Files.createDirectories(dir.resolve(name));
        Files.writeString(src.resolve("main.go"), program);
        return src;
    }

    /** Builds {@code src/main.go}; the client binary's path. */
    private static String goBuild(Path src, Map<String, String> env) throws Exception {
        Run build = agent(src, env, "go", "build", "-o", "client", "main.go");
        assertEquals(0, build.exit(), build.all());
        return src.resolve("client").toString();
    }

    // ---- the README's table -------------------------------------------------------------------

    /** The table as the README holds it, between its markers. */
    static String table() {
        List<String> lines = new ArrayList<>();
        lines.add("| client | how it is driven | intercepted, credential injected | opaque tunnel |");
        lines.add("|---|---|---|---|");
        for (Row row : MATRIX) {
            lines.add("| " + row.client() + " | " + row.how() + " | `AgentClientsTest." + row.intercepted() + "` | `AgentClientsTest."
                    + row.tunnel() + "` |");
        }
        return String.join("\n", lines);
    }

    @Test
    void theReadmeTableIsThisMatrix() throws Exception {
        for (Row row : MATRIX) {
            for (String name : List.of(row.intercepted(), row.tunnel())) {
                Method test = AgentClientsTest.class.getDeclaredMethod(name);
                assertTrue(test.isAnnotationPresent(Test.class), name + " is not a test");
            }
        }
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("<!-- agent-clients:start -->");
        int end = readme.indexOf("<!-- agent-clients:end -->");
        assertTrue(start >= 0 && end > start, "README.md lacks the agent-clients markers");
        String inReadme = readme.substring(start + "<!-- agent-clients:start -->".length(), end).strip();
        assertEquals(table(), inReadme, "README.md's client table is not AgentClientsTest.MATRIX; put this there:\n" + table());
    }
}
