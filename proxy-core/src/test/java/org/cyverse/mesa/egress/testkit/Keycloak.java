package org.cyverse.mesa.egress.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Keycloak ({@code org.keycloak:keycloak-quarkus-dist}, proxy-core's test dependency) on
 * loopback, serving the realm {@value #REALM} from {@code keycloak/cyverse-realm.json} (settings and
 * the Keycloak documentation behind each in {@code keycloak/README.md} beside it): the authorization
 * server the {@code oauth2} credential kind is proven against.
 *
 * <p>One per test JVM ({@link #shared()}, started on first use, stopped by a shutdown hook; surefire
 * forks a JVM per test class here). Start: the zip (system property {@code keycloak.dist}) is
 * unpacked once into {@code keycloak.home} (reused while its completion marker is there), the realm
 * file is copied into its {@code data/import}, and {@code bin/kc.sh start-dev --import-realm} runs
 * on a JDK 21+ with an in-memory database, bound to 127.0.0.1 on a free port, with the hostname
 * fixed to that address so every token's {@code iss} is {@link #issuer()} whatever host name a
 * client used; readiness is the realm's discovery document answering, within
 * {@value #START_SECONDS} s. The first start on a fresh unpack also builds Keycloak's optimized
 * server image (Quarkus augmentation, about 20 s here) and relaunches; later ones do not. How long
 * the start took is printed, kept ({@link #startTime()}) and appended to
 * {@code keycloak.logs/starts.log} with the server's peak resident memory at the stop, so CI cost
 * can be read off a build. The server's log is {@link #log()}; a failed start names it.
 *
 * <p>The process tree (a watchdog shell, {@code kc.sh}, the server's JVM) is killed when this JVM
 * exits, and the watchdog stops the server if this JVM dies without running its hooks. The
 * database lives in memory, so nothing is lost by killing: each start imports the realm afresh.
 *
 * <p>Keycloak's own JVM keeps to {@code -Xms64m -Xmx512m} ({@code JAVA_OPTS_KC_HEAP}, as
 * {@code kc.sh} defaults outside containers).
 */
public final class Keycloak {

    /** The realm the fixture defines, standing for CyVerse's (kc.cyverse.org). */
    public static final String REALM = "CyVerse";
    /** The confidential client the proxy authenticates as: password, refresh, client credentials, standard token exchange, JWT authorization grant. */
    public static final String PROXY_CLIENT = "mesa-agent-proxy";
    public static final String PROXY_SECRET = "mesa-agent-proxy-secret";
    /** A public client standing for whatever logs the user in before the proxy: its access tokens carry {@value #PROXY_CLIENT} in {@code aud}. */
    public static final String LAUNCHER_CLIENT = "mesa-launcher";
    public static final String ALICE = "alice";
    public static final String ALICE_PASSWORD = "alice-password";
    public static final String BOB = "bob";
    public static final String BOB_PASSWORD = "bob-password";
    /** The resource servers' client ids: Discovery Environment and Data Store. */
    public static final String DE = "de";
    public static final String DATA = "data";
    /** The identity provider trusted for RFC 7523 assertions ({@link #assertion}), its issuer, and alice's id there. */
    public static final String LAUNCHER_IDP = "launcher";
    public static final String LAUNCHER_ISSUER = "https://launcher.mesa.test";
    public static final String ALICE_AT_LAUNCHER = "launcher-alice";

    public static final String GRANT_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
    public static final String GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
    public static final String TOKEN_TYPE_ACCESS = "urn:ietf:params:oauth:token-type:access_token";

    /** The start's deadline. JUnit's default timeout here is 120 s: call {@link #shared()} from a method with {@code @Timeout(Keycloak.START_SECONDS + 30)}. */
    public static final int START_SECONDS = 180;
    private static final String REALM_RESOURCE = "/keycloak/cyverse-realm.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Stops the server if this JVM goes without running its shutdown hooks: polls the parent, then TERMs kc.sh (which forwards it to the server). */
    private static final String WATCHDOG = "parent=$1; shift; \"$@\" & child=$!; "
            + "while kill -0 \"$parent\" 2>/dev/null && kill -0 \"$child\" 2>/dev/null; do sleep 1; done; "
            + "kill -TERM \"$child\" 2>/dev/null; wait \"$child\"";

    private static Keycloak shared;
    private static Exception failure;

    private final String base;
    private final Process process;
    private final Path log;
    private final Path logs;
    private final FileLock lock;
    private volatile Duration startTime;
    private volatile boolean built;
    private volatile String version;
    private boolean stopped;
    private final KeyPair launcherKey;
    private final HttpClient http = HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String adminPassword;

    /** The shared instance, started on first use; a failed start throws, naming the log, and is not tried again in this JVM. */
    public static synchronized Keycloak shared() {
        if (failure != null) {
            throw new IllegalStateException("Keycloak did not start in this JVM (first failure is the cause)", failure);
        }
        if (shared == null) {
            try {
                shared = start();
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                failure = e;
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = e;
                throw new IllegalStateException("interrupted while Keycloak started", e);
            }
        }
        return shared;
    }

    private Keycloak(String base, Process process, Path log, Path logs, FileLock lock, KeyPair launcherKey, String adminPassword) {
        this.base = base;
        this.process = process;
        this.log = log;
        this.logs = logs;
        this.lock = lock;
        this.launcherKey = launcherKey;
        this.adminPassword = adminPassword;
    }

    private static Keycloak start() throws IOException, InterruptedException, GeneralSecurityException {
        Path zip = Path.of(KeycloakDistribution.required("keycloak.dist", "the keycloak-quarkus-dist zip"));
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("no Keycloak distribution at " + zip
                    + " (proxy-core's test dependency org.keycloak:keycloak-quarkus-dist:zip; Maven downloads it on an online build)");
        }
        Path home = Path.of(KeycloakDistribution.required("keycloak.home", "where to unpack it")).toAbsolutePath();
        Path logs = Path.of(System.getProperty("keycloak.logs", home.getParent().resolve("keycloak-logs").toString())).toAbsolutePath();
        Files.createDirectories(logs);
        Path java = KeycloakDistribution.javaHome();
        Instant deadline = Instant.now().plusSeconds(START_SECONDS);

        // One server per unpacked distribution at a time: it writes data/ and, on a first start, lib/.
        Files.createDirectories(home.getParent());
        FileChannel channel = FileChannel.open(home.resolveSibling(home.getFileName() + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        while (lock == null) {
            if (Instant.now().isAfter(deadline)) {
                channel.close();
                throw new IllegalStateException("another JVM has held " + home + " for " + START_SECONDS + " s (a Keycloak of a parallel build?)");
            }
            Thread.sleep(500);
            lock = channel.tryLock();
        }
        boolean started = false;
        try {
            Duration unpacking = KeycloakDistribution.unpackOnce(zip, home);
            Path imports = home.resolve("data/import");
            Files.createDirectories(imports);
            try (Stream<Path> old = Files.list(imports)) {
                for (Path p : old.collect(Collectors.toList())) {
                    Files.delete(p);
                }
            }
            try (InputStream realm = Keycloak.class.getResourceAsStream(REALM_RESOURCE)) {
                if (realm == null) {
                    throw new IllegalStateException("no " + REALM_RESOURCE + " on the test classpath");
                }
                // The import insists that a file be named after its realm.
                Files.copy(realm, imports.resolve(REALM + "-realm.json"));
            }

            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            String base = "http://127.0.0.1:" + port;
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair launcherKey = generator.generateKeyPair();
            String adminPassword = UUID.randomUUID().toString();
            Path log = logs.resolve("keycloak-" + ProcessHandle.current().pid() + ".log");

            List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", WATCHDOG, "watchdog",
                    Long.toString(ProcessHandle.current().pid()),
                    "/bin/sh", home.resolve("bin/kc.sh").toString(), "start-dev",
                    "--http-host=127.0.0.1", "--http-port=" + port,
                    "--hostname=" + base,
                    "--db=dev-mem",
                    "--import-realm"));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            Map<String, String> env = builder.environment();
            // Nothing from the developer's shell configures this server (KC_DB, JAVA_OPTS, ...).
            env.keySet().removeIf(k -> k.startsWith("KC_") || k.startsWith("JAVA_OPTS") || k.toLowerCase().endsWith("_proxy"));
            env.put("JAVA_HOME", java.toString());
            env.put("JAVA_OPTS_KC_HEAP", "-Xms64m -Xmx512m");
            env.put("KC_BOOTSTRAP_ADMIN_USERNAME", "admin");
            env.put("KC_BOOTSTRAP_ADMIN_PASSWORD", adminPassword);
            // The realm file's ${MESA_LAUNCHER_PUBLIC_KEY}: Keycloak resolves environment placeholders on import.
            env.put("MESA_LAUNCHER_PUBLIC_KEY", Base64.getEncoder().encodeToString(launcherKey.getPublic().getEncoded()));

            Instant begun = Instant.now();
            Process process = builder.start();
            Keycloak keycloak = new Keycloak(base, process, log, logs, lock, launcherKey, adminPassword);
            Runtime.getRuntime().addShutdownHook(new Thread(keycloak::stop, "keycloak-stop"));
            keycloak.awaitReady(deadline);
            keycloak.startTime = Duration.between(begun, Instant.now());
            keycloak.built = Files.readString(log).contains("Quarkus augmentation completed");
            keycloak.version = Files.readString(home.resolve("version.txt")).trim();
            String line = String.format("%s %s ready at %s in %.1f s (%s; unpack %.1f s) on %s; log %s",
                    Instant.now(), keycloak.version, base, keycloak.startTime.toMillis() / 1000.0,
                    keycloak.built ? "built its server image first" : "no build", unpacking.toMillis() / 1000.0, java, log);
            System.out.println(line);
            Files.writeString(logs.resolve("starts.log"), line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            started = true;
            return keycloak;
        } finally {
            if (!started && lock.isValid()) {
                lock.release();
                channel.close();
            }
        }
    }

    private void awaitReady(Instant deadline) throws IOException, InterruptedException {
        HttpRequest discovery = HttpRequest.newBuilder(URI.create(issuer() + "/.well-known/openid-configuration"))
                .timeout(Duration.ofSeconds(5)).build();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Keycloak exited with " + process.exitValue() + " before it was ready (a start "
                        + "killed while it built its server image leaves a broken one: delete the unpacked distribution); its log: "
                        + log + "\n" + tail(log));
            }
            try {
                if (http.send(discovery, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (Instant.now().isAfter(deadline)) {
                stop();
                throw new IllegalStateException("Keycloak was not ready within " + START_SECONDS + " s; its log: " + log + "\n" + tail(log));
            }
            Thread.sleep(250);
        }
    }

    /** Kills the process tree (the database is in memory: nothing to save) and notes the server's peak memory. */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        process.descendants().forEach(tree::add);
        String peak = tree.stream().map(Keycloak::peakResident).filter(s -> !s.isEmpty()).findFirst().orElse("unknown");
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : tree) {
            try {
                p.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("Keycloak process " + p.pid() + " did not exit: " + e);
            }
        }
        try {
            Files.writeString(logs.resolve("starts.log"), Instant.now() + " stopped " + base + ", server peak resident memory " + peak + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            if (lock.isValid()) {
                lock.release();
                lock.channel().close();
            }
        } catch (IOException e) {
            System.err.println("Keycloak stop: " + e);
        }
    }

    /** VmHWM of a java process (the server; kc.sh and the watchdog are shells), or "". */
    private static String peakResident(ProcessHandle p) {
        if (!p.info().command().orElse("").endsWith("/java")) {
            return "";
        }
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status")).stream()
                    .filter(l -> l.startsWith("VmHWM:")).map(l -> l.substring(6).trim()).findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    /** http://127.0.0.1:port */
    public String baseUrl() {
        return base;
    }

    /** The realm's issuer, the {@code iss} of every token it signs. */
    public String issuer() {
        return base + "/realms/" + REALM;
    }

    public String tokenEndpoint() {
        return issuer() + "/protocol/openid-connect/token";
    }

    /** RFC 7009 token revocation. */
    public String revocationEndpoint() {
        return issuer() + "/protocol/openid-connect/revoke";
    }

    /** The realm's signing keys (RS256 for access tokens). */
    public String jwksUrl() {
        return issuer() + "/protocol/openid-connect/certs";
    }

    /** From launching kc.sh to the realm's discovery document answering. */
    public Duration startTime() {
        return startTime;
    }

    /** Whether this start built Keycloak's server image first (a fresh unpack's first start). */
    public boolean built() {
        return built;
    }

    /** The distribution's version.txt line, e.g. "Keycloak - Version 26.7.3". */
    public String version() {
        return version;
    }

    /** The server's log (stdout and stderr of kc.sh). */
    public Path log() {
        return log;
    }

    /** The realm's access token lifespan in seconds, read from the fixture: every access token's {@code expires_in}. */
    public static int accessTokenLifespan() {
        try (InputStream realm = Keycloak.class.getResourceAsStream(REALM_RESOURCE)) {
            return JSON.readTree(realm).path("accessTokenLifespan").asInt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JWT's claims, unverified. */
    public static JWTClaimsSet claims(String jwt) {
        try {
            return SignedJWT.parse(jwt).getJWTClaimsSet();
        } catch (ParseException e) {
            throw new IllegalArgumentException("not a JWT: " + e.getMessage(), e);
        }
    }

    /** A raw token endpoint request: the form as given (client authentication included by the caller). */
    public TokenAnswer tokenRequest(Map<String, String> form) {
        return post(tokenEndpoint(), form);
    }

    /** The resource owner password grant, as a launcher gets the user's first tokens; {@code scope} may be null (e.g. "offline_access"). */
    public TokenAnswer passwordGrant(String client, String secret, String user, String password, String scope) {
        Map<String, String> form = form(client, secret);
        form.put("grant_type", "password");
        form.put("username", user);
        form.put("password", password);
        if (scope != null) {
            form.put("scope", scope);
        }
        return tokenRequest(form);
    }

    public TokenAnswer refresh(String client, String secret, String refreshToken) {
        Map<String, String> form = form(client, secret);
        form.put("grant_type", "refresh_token");
        form.put("refresh_token", refreshToken);
        return tokenRequest(form);
    }

    public TokenAnswer clientCredentials(String client, String secret) {
        Map<String, String> form = form(client, secret);
        form.put("grant_type", "client_credentials");
        return tokenRequest(form);
    }

    /** RFC 8693 standard token exchange of an access token for one with {@code aud} the given client (null: no audience parameter). */
    public TokenAnswer tokenExchange(String client, String secret, String subjectToken, String audience) {
        Map<String, String> form = form(client, secret);
        form.put("grant_type", GRANT_TOKEN_EXCHANGE);
        form.put("subject_token", subjectToken);
        form.put("subject_token_type", TOKEN_TYPE_ACCESS);
        if (audience != null) {
            form.put("audience", audience);
        }
        return tokenRequest(form);
    }

    /** RFC 7523 JWT authorization grant with the given assertion. */
    public TokenAnswer jwtBearer(String client, String secret, String assertion) {
        Map<String, String> form = form(client, secret);
        form.put("grant_type", GRANT_JWT_BEARER);
        form.put("assertion", assertion);
        return tokenRequest(form);
    }

    /** RFC 7009 revocation of a token by the client it was issued to; the status (200 whether or not the token was valid). */
    public int revoke(String client, String secret, String token, String tokenTypeHint) {
        Map<String, String> form = form(client, secret);
        form.put("token", token);
        form.put("token_type_hint", tokenTypeHint);
        return post(revocationEndpoint(), form).status();
    }

    private static Map<String, String> form(String client, String secret) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("client_id", client);
        if (secret != null) {
            form.put("client_secret", secret);
        }
        return form;
    }

    /**
     * An RFC 7523 assertion from the {@value #LAUNCHER_IDP} identity provider the realm trusts:
     * RS256 with this JVM's launcher key, {@code iss} {@value #LAUNCHER_ISSUER}, {@code aud} the
     * realm's issuer, a fresh {@code jti} (Keycloak refuses a reused one), {@code exp} after
     * {@code lifetime}. Keycloak finds the user by {@code subject} through the IdP link (alice's is
     * {@value #ALICE_AT_LAUNCHER}).
     */
    public String assertion(String subject, Duration lifetime) {
        Instant now = Instant.now();
        return assertion(subject, now, now.plus(lifetime));
    }

    /** {@link #assertion(String, Duration)} with the given {@code iat} and {@code exp}. */
    public String assertion(String subject, Instant issuedAt, Instant expiresAt) {
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(LAUNCHER_ISSUER)
                .subject(subject)
                .audience(issuer())
                .issueTime(Date.from(issuedAt))
                .expirationTime(Date.from(expiresAt))
                .jwtID(UUID.randomUUID().toString())
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).build(), claims);
        try {
            jwt.sign(new RSASSASigner((RSAPrivateKey) launcherKey.getPrivate()));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    // ---- Admin REST API (https://www.keycloak.org/docs-api/latest/rest-api/), as the master realm's admin-cli ----

    /** The user's id in the realm. */
    public String userId(String username) {
        JsonNode users = admin("GET", "/users?exact=true&username=" + encode(username), null);
        if (!users.isArray() || users.size() != 1) {
            throw new IllegalStateException("no single user " + username + ": " + users);
        }
        return users.get(0).path("id").asText();
    }

    /**
     * Ends every regular (online) session of the user ({@code POST /users/{id}/logout}): their
     * refresh tokens stop working. In Keycloak 26.7 this does not touch offline sessions: an
     * offline token keeps refreshing after it; {@link #revokeOfflineAccess} ends those.
     */
    public void logoutUser(String username) {
        admin("POST", "/users/" + userId(username) + "/logout", null);
    }

    /**
     * Revokes the user's grant to the client, offline tokens included ({@code DELETE
     * /users/{id}/consents/{client}}; the admin console's Consents tab, "Offline access" in the
     * Server Administration Guide): the client's offline sessions of the user end.
     */
    public void revokeOfflineAccess(String username, String clientId) {
        admin("DELETE", "/users/" + userId(username) + "/consents/" + encode(clientId), null);
    }

    /** How many regular sessions the user has. */
    public int sessions(String username) {
        return admin("GET", "/users/" + userId(username) + "/sessions", null).size();
    }

    /** How many offline sessions the user has with the client. */
    public int offlineSessions(String username, String clientId) {
        JsonNode clients = admin("GET", "/clients?clientId=" + encode(clientId), null);
        String id = clients.get(0).path("id").asText();
        return admin("GET", "/users/" + userId(username) + "/offline-sessions/" + id, null).size();
    }

    /** An admin API call on the realm; the JSON answer (an empty object for none); throws on a non-2xx status. */
    public JsonNode admin(String method, String path, Object body) {
        try {
            TokenAnswer login = post(base + "/realms/master/protocol/openid-connect/token",
                    Map.of("grant_type", "password", "client_id", "admin-cli", "username", "admin", "password", adminPassword));
            if (!login.ok()) {
                throw new IllegalStateException("admin login refused: " + login);
            }
            HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/admin/realms/" + REALM + path))
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + login.accessToken())
                    .header("Content-Type", "application/json")
                    .method(method, publisher)
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private TokenAnswer post(String url, Map<String, String> form) {
        String body = form.entrySet().stream()
                .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                .collect(Collectors.joining("&"));
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json = response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
            return new TokenAnswer(response.statusCode(), json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
