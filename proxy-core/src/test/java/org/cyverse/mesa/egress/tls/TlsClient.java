package org.cyverse.mesa.egress.tls;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS clients agents use, each verifying the server against a CA file the way an agent's
 * environment configures it (SPEC.md "Environment for agents"), or, with no CA file, against its
 * own default trust only. Every client verifies the chain and the host name; none is told to skip.
 */
enum TlsClient {

    /** The JDK's HttpClient: PKIX validation and HTTPS host name verification (on by default). */
    JDK("SSLHandshakeException") {
        @Override
        Outcome fetch(String host, int port, Path caFile) {
            try {
                SSLContext ssl;
                if (caFile == null) {
                    ssl = SSLContext.getDefault();
                } else {
                    KeyStore trust = KeyStore.getInstance("PKCS12");
                    trust.load(null, null);
                    try (InputStream in = Files.newInputStream(caFile)) {
                        trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
                    }
                    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                    tmf.init(trust);
                    ssl = SSLContext.getInstance("TLS");
                    ssl.init(null, tmf.getTrustManagers(), null);
                }
                HttpClient client = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
                String authority = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("https://" + authority + "/"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                return new Outcome(response.statusCode() == 200, response.body(), "status " + response.statusCode());
            } catch (IOException e) {
                return new Outcome(false, "", e.toString());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    },

    /** CPython's ssl module (OpenSSL) with {@code VERIFY_X509_STRICT}, the default from Python 3.13 on. */
    PYTHON("CERTIFICATE_VERIFY_FAILED") {
        private static final String SCRIPT = String.join("\n",
                "import http.client, ssl, sys",
                "host, port, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3]",
                "ctx = ssl.create_default_context(cafile=cafile or None)",
                "ctx.verify_flags |= ssl.VERIFY_X509_STRICT",
                "assert ctx.check_hostname and ctx.verify_mode == ssl.CERT_REQUIRED",
                "conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=10)",
                "conn.request('GET', '/')",
                "sys.stdout.write(conn.getresponse().read().decode())");

        @Override
        Outcome fetch(String host, int port, Path caFile) throws IOException, InterruptedException {
            return run(List.of("python3", "-c", SCRIPT, host, Integer.toString(port), caFile == null ? "" : caFile.toString()), Map.of());
        }
    },

    /** curl (OpenSSL), as agents run it with {@code CURL_CA_BUNDLE}. */
    // 60: CURLE_PEER_FAILED_VERIFICATION; 77: no CA bundle at all, on a machine without ca-certificates.
    CURL("^exit (60|77): ") {
        @Override
        Outcome fetch(String host, int port, Path caFile) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10", "--noproxy", "*"));
            if (caFile != null) {
                command.addAll(List.of("--cacert", caFile.toString()));
            }
            command.add("https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/");
            return run(command, Map.of());
        }
    },

    /** Node's https module (its own OpenSSL) with the CA added through {@code NODE_EXTRA_CA_CERTS}. */
    NODE("(?i)cert") {
        private static final String SCRIPT = String.join("\n",
                "const https = require('https');",
                "https.get({host: process.env.TARGET_HOST, port: Number(process.env.TARGET_PORT), path: '/', agent: false, timeout: 10000},",
                "  res => { let body = ''; res.setEncoding('utf8'); res.on('data', d => body += d);",
                "           res.on('end', () => { process.stdout.write(body); process.exit(res.statusCode === 200 ? 0 : 1); }); })",
                "  .on('error', e => { console.error(e.code + ': ' + e.message); process.exit(1); });");

        @Override
        Outcome fetch(String host, int port, Path caFile) throws IOException, InterruptedException {
            return run(List.of("node", "-e", SCRIPT), caFile == null
                    ? Map.of("TARGET_HOST", host, "TARGET_PORT", Integer.toString(port))
                    : Map.of("TARGET_HOST", host, "TARGET_PORT", Integer.toString(port), "NODE_EXTRA_CA_CERTS", caFile.toString()));
        }
    },

    /** git over smart HTTP (Debian's git: libcurl with GnuTLS, a third TLS stack), trusting {@code GIT_SSL_CAINFO}. */
    GIT("^exit 128: .*(?i:certificate)") {
        @Override
        Outcome fetch(String host, int port, Path caFile) throws IOException, InterruptedException {
            Path home = Files.createTempDirectory("git-home");
            try {
                Map<String, String> env = new java.util.HashMap<>(Map.of("HOME", home.toString(), "GIT_TERMINAL_PROMPT", "0",
                        "GIT_CONFIG_NOSYSTEM", "1", "GIT_CONFIG_GLOBAL", "/dev/null"));
                if (caFile != null) {
                    env.put("GIT_SSL_CAINFO", caFile.toString());
                }
                return run(List.of("git", "ls-remote", "https://" + host + ":" + port + "/repo.git"), env);
            } finally {
                try (var files = Files.walk(home)) { // git may leave files in HOME: nothing of the test stays in the temporary folder
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }

        @Override
        String expectedOutput() {
            return TlsTestServer.GIT_REF_ID + "\t" + TlsTestServer.GIT_REF;
        }
    };

    /** What a client got: whether it succeeded, what it printed (the body), and its diagnostics. */
    record Outcome(boolean ok, String out, String diagnostics) {}

    private final Pattern verificationFailure;

    TlsClient(String verificationFailure) {
        this.verificationFailure = Pattern.compile(verificationFailure, Pattern.DOTALL);
    }

    /** Whether the client failed because certificate verification failed, not for another reason. */
    boolean refusedTheCertificate(Outcome outcome) {
        return !outcome.ok() && verificationFailure.matcher(outcome.diagnostics()).find();
    }

    abstract Outcome fetch(String host, int port, Path caFile) throws IOException, InterruptedException;

    /** What the client prints when it reached {@link TlsTestServer}. */
    String expectedOutput() {
        return TlsTestServer.BODY;
    }

    /** Variables that would change what a client trusts or where it connects; the tests set their own. */
    private static final List<String> TRUST_VARIABLES = List.of("SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
            "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "NODE_TLS_REJECT_UNAUTHORIZED",
            "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_NO_VERIFY", "PYTHONHTTPSVERIFY");

    static Outcome run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy") || TRUST_VARIABLES.contains(k));
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IOException(command.get(0) + " is not installed (bin/test installs it): " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        // stderr is small; read it after stdout, both before waiting, so neither pipe can fill up.
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Outcome(false, out, "timed out; " + err);
        }
        return new Outcome(process.exitValue() == 0, out, "exit " + process.exitValue() + ": " + err);
    }
}
