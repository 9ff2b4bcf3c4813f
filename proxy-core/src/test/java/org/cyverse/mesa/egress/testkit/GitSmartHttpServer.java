package org.cyverse.mesa.egress.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * A real git smart-HTTP server over HTTPS on loopback: the JDK's HTTPS server in front of the machine's own
 * {@code git http-backend}, run as a CGI program (RFC 3875) for each request, serving the bare repositories under a
 * root directory. Clones, fetches and pushes (receive-pack is enabled) work as against a real forge.
 *
 * <p>Every request must carry {@code Authorization: Basic} with the one credential the server was started with;
 * any other request is answered 401 with {@code WWW-Authenticate: Basic realm="git"} and git is not run for it. The
 * server records every request it answered ({@link #seen()}), how many times it ran http-backend
 * ({@link #backendRuns()}) and what http-backend wrote to stderr ({@link #stderr()}), for assertions and failure
 * messages. It does not police branches: that is the proxy's job.
 *
 * <p>Every process it runs (http-backend per request, or {@link #git} for a test) is killed, with its descendants,
 * after {@link #TIMEOUT} at most, so a wedged git fails a test rather than hanging the build.
 */
public final class GitSmartHttpServer implements AutoCloseable {

    /** The longest any git process may run before it is killed. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** One request as it arrived (path decoded, query raw, "" when none; Authorization as sent, or null) and the status it got. */
    public record Seen(String method, String path, String query, String authorization, int status) {}

    /** What a command did: its exit code (not 0 when killed after {@link #TIMEOUT}), stdout and stderr. */
    public record Result(int exit, String out, String err) {

        /** Whether the command exited 0. */
        public boolean ok() {
            return exit == 0;
        }
    }

    /** The fixed identity and time of the commits {@link #createRepository} makes, so their ids are reproducible. */
    private static final Map<String, String> SEED_IDENTITY = Map.of(
            "GIT_AUTHOR_NAME", "Mesa Fixture", "GIT_AUTHOR_EMAIL", "fixture@example.invalid",
            "GIT_COMMITTER_NAME", "Mesa Fixture", "GIT_COMMITTER_EMAIL", "fixture@example.invalid",
            "GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z");

    /** Request headers that must not become {@code HTTP_*} variables: credentials (RFC 3875 4.1.18) and those CGI names itself. */
    private static final Set<String> NOT_PASSED = Set.of("authorization", "proxy-authorization", "content-type", "content-length");

    private final Path root;
    private final String user;
    private final byte[] credential;
    /** Repositories anyone may fetch without credentials, as GitHub serves public ones. */
    private final Set<String> publicRepositories = ConcurrentHashMap.newKeySet();
    private final HttpsServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "git-http-reaper");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Process> running = ConcurrentHashMap.newKeySet();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger backendRuns = new AtomicInteger();
    private final StringBuilder stderr = new StringBuilder();

    private GitSmartHttpServer(Path root, SSLContext tls, String user, String password) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        this.user = user;
        this.credential = (user + ":" + password).getBytes(UTF_8);
        Files.createDirectories(this.root);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Starts a server on 127.0.0.1 (a free port) serving the bare repositories under {@code root}, presenting
     * {@code tls}'s certificate, and accepting only {@code user:password} as Basic credentials.
     */
    public static GitSmartHttpServer start(Path root, SSLContext tls, String user, String password) throws IOException {
        return new GitSmartHttpServer(root, tls, user, password);
    }

    /** The port the server listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The clone URL of {@code repo} (such as {@code acme/widgets.git}), without credentials. */
    public String url(String repo) {
        return "https://localhost:" + port() + "/" + repo;
    }

    /** Lets anyone fetch {@code repo} (such as {@code octo/public-lib.git}) without credentials; pushes still need them. */
    public void makePublic(String repo) {
        publicRepositories.add(repo);
    }

    /** The {@code Authorization} header value the server accepts. */
    public String authorization() {
        return "Basic " + Base64.getEncoder().encodeToString(credential);
    }

    /**
     * Creates the bare repository {@code root/repo} (such as {@code acme/widgets.git}) with one commit on
     * {@code main}, adding {@code README.md} with the text {@code "# " + repo + "\n"}, a lightweight tag {@code v1}
     * on it, HEAD at {@code main}, and pushes over HTTP enabled. The commit's author, committer and dates are fixed.
     *
     * @return the bare repository's directory
     */
    public Path createRepository(String repo) throws IOException, InterruptedException {
        Path bare = repository(repo);
        Files.createDirectories(bare.getParent());
        check(git(root, Map.of(), "init", "--quiet", "--bare", "-b", "main", bare.toString()));
        // http-backend would allow receive-pack anyway, REMOTE_USER being set; saying so keeps pushes working if not.
        check(git(bare, Map.of(), "config", "http.receivepack", "true"));
        // The seed commit is made in a scratch work tree outside root (root is served) and pushed by file path.
        Path work = Files.createTempDirectory("git-seed");
        try {
            check(git(work, Map.of(), "init", "--quiet", "-b", "main"));
            Files.writeString(work.resolve("README.md"), "# " + repo + "\n");
            check(git(work, Map.of(), "add", "README.md"));
            check(git(work, SEED_IDENTITY, "commit", "--quiet", "-m", "Initial commit"));
            check(git(work, Map.of(), "tag", "v1"));
            check(git(work, Map.of(), "push", "--quiet", bare.toString(), "refs/heads/main:refs/heads/main", "refs/tags/v1:refs/tags/v1"));
        } finally {
            deleteTree(work);
        }
        return bare;
    }

    /**
     * Someone else moves {@code branch} of {@code repo} on the server (a teammate's merge to
     * {@code main}): one commit adding {@code file} on top of it, pushed by file path, not
     * through any proxy. Returns the new commit's id.
     */
    public String advance(String repo, String branch, String file) throws IOException, InterruptedException {
        return commit(repo, branch, Map.of(file, "a teammate's work\n"), "A teammate's change");
    }

    /** One commit of {@code files} (path to text) on top of {@code branch} of {@code repo}, pushed by file path. Returns its id. */
    public String commit(String repo, String branch, Map<String, String> files, String message) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("git-teammate");
        try {
            check(git(work, Map.of(), "clone", "--quiet", "-b", branch, repository(repo).toString(), "."));
            for (Map.Entry<String, String> f : files.entrySet()) {
                Files.createDirectories(work.resolve(f.getKey()).toAbsolutePath().getParent());
                Files.writeString(work.resolve(f.getKey()), f.getValue());
                check(git(work, Map.of(), "add", f.getKey()));
            }
            check(git(work, SEED_IDENTITY, "commit", "--quiet", "-m", message));
            check(git(work, Map.of(), "push", "--quiet", "origin", "HEAD:refs/heads/" + branch));
            return check(git(work, Map.of(), "rev-parse", "HEAD")).out().strip();
        } finally {
            deleteTree(work);
        }
    }

    /**
     * How {@code repo} on the server compares {@code base} with {@code head}, as GitHub's compare API
     * reports it ({@code ahead}: head has commits base has not, and none the other way), or
     * {@code null} when it lacks one of them.
     */
    public FakeComparison compare(String repo, String base, String head) throws IOException, InterruptedException {
        Result counted = git(repository(repo), Map.of(), "rev-list", "--left-right", "--count", base + "..." + head);
        if (counted.exit() != 0) {
            return null;
        }
        String[] lr = counted.out().strip().split("\\s+");
        int behind = Integer.parseInt(lr[0]);
        int ahead = Integer.parseInt(lr[1]);
        String status = ahead == 0 && behind == 0 ? "identical" : behind == 0 ? "ahead" : ahead == 0 ? "behind" : "diverged";
        String mergeBase = check(git(repository(repo), Map.of(), "merge-base", base, head)).out().strip();
        return new FakeComparison(status, ahead, behind, mergeBase);
    }

    /** A comparison as {@link #compare} finds it. */
    public record FakeComparison(String status, int aheadBy, int behindBy, String mergeBase) {}

    /** Every ref of the bare repository {@code repo}, name (such as {@code refs/heads/main}) to object id, sorted by name. */
    public Map<String, String> refs(String repo) throws IOException, InterruptedException {
        Result listed = check(git(repository(repo), Map.of(), "for-each-ref", "--format=%(refname) %(objectname)"));
        Map<String, String> refs = new TreeMap<>();
        listed.out().lines().filter(line -> !line.isBlank()).forEach(line -> {
            int space = line.indexOf(' ');
            refs.put(line.substring(0, space), line.substring(space + 1));
        });
        return refs;
    }

    /** Every request answered so far, in the order their status was decided (a live, thread-safe list). */
    public List<Seen> seen() {
        return seen;
    }

    /** How many times http-backend was run, that is how many requests got past authentication. */
    public int backendRuns() {
        return backendRuns.get();
    }

    /** What http-backend (and the git it ran) wrote to stderr so far, each run's text after its request line. */
    public String stderr() {
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    /**
     * Runs {@code git args} in {@code dir} and waits for it, at most {@link #TIMEOUT} (then it is killed with its
     * descendants). Its environment is this JVM's without any {@code GIT_*} or {@code *_proxy} variable, plus
     * {@code GIT_CONFIG_NOSYSTEM=1}, {@code GIT_CONFIG_GLOBAL=/dev/null} (no user's or machine's config leaks in),
     * {@code GIT_TERMINAL_PROMPT=0} and {@code LC_ALL=C}, then {@code env} on top (which may override any of them,
     * for instance with {@code HTTPS_PROXY}, {@code GIT_SSL_CAINFO}, or {@code HOME} and {@code GIT_CONFIG_GLOBAL}
     * to use a config file). stdin is empty.
     */
    public static Result git(Path dir, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("GIT_") || name.toLowerCase(Locale.ROOT).endsWith("_proxy"));
        environment.put("GIT_CONFIG_NOSYSTEM", "1");
        environment.put("GIT_CONFIG_GLOBAL", "/dev/null");
        environment.put("GIT_TERMINAL_PROMPT", "0");
        environment.put("LC_ALL", "C");
        environment.putAll(env);
        // Output goes to files, not pipes: a pipe could be held open by a stray descendant and block the reader.
        Path out = Files.createTempFile("git-out", ".txt");
        Path err = Files.createTempFile("git-err", ".txt");
        try {
            builder.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process process = builder.start();
            process.getOutputStream().close();
            boolean finished = process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                kill(process);
                process.waitFor(10, TimeUnit.SECONDS);
            }
            String errors = Files.readString(err) + (finished ? "" : "\n[killed after " + TIMEOUT.toSeconds() + " s]\n");
            return new Result(finished ? process.exitValue() : -1, Files.readString(out), errors);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private Path repository(String repo) {
        Path path = root.resolve(repo).normalize();
        if (!path.startsWith(root) || path.equals(root)) {
            throw new IllegalArgumentException("not a repository under the root: " + repo);
        }
        return path;
    }

    private static Result check(Result result) throws IOException {
        if (!result.ok()) {
            throw new IOException("git failed (" + result.exit() + "): " + result.err() + result.out());
        }
        return result;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            URI uri = exchange.getRequestURI();
            String method = exchange.getRequestMethod();
            String path = uri.getPath();
            String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            boolean anonymousFetch = authorization == null && publicRepositories.stream().anyMatch(r -> path.startsWith("/" + r + "/"))
                    && (path.endsWith("/git-upload-pack") || path.endsWith("/info/refs") && query.equals("service=git-upload-pack"));
            if (!anonymousFetch && !authorized(authorization)) {
                seen.add(new Seen(method, path, query, authorization, 401));
                exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"git\"");
                exchange.getResponseHeaders().set("Content-Type", "text/plain");
                byte[] body = "Authentication required\n".getBytes(UTF_8);
                exchange.sendResponseHeaders(401, body.length);
                exchange.getResponseBody().write(body);
                return;
            }
            runBackend(exchange, method, path, query, authorization);
        } finally {
            exchange.close();
        }
    }

    /** Constant-time check of {@code Authorization: Basic ...} against the one credential. */
    private boolean authorized(String authorization) {
        if (authorization == null) {
            return false;
        }
        String[] parts = authorization.trim().split("\\s+", 2);
        if (parts.length != 2 || !parts[0].equalsIgnoreCase("Basic")) {
            return false;
        }
        try {
            return MessageDigest.isEqual(Base64.getDecoder().decode(parts[1]), credential);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /** Runs http-backend for one request: body to its stdin, its CGI response (headers, then body) to the client. */
    private void runBackend(HttpExchange exchange, String method, String path, String query, String authorization) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("git", "http-backend");
        // Nothing of the JVM's environment reaches it: no GIT_DIR, proxy or config of the machine, and no
        // GIT_HTTP_MAX_REQUEST_BUFFER (http-backend's default buffer is what a real forge runs with).
        builder.environment().clear();
        builder.environment().putAll(cgiEnvironment(exchange, method, path, query));
        Process process = builder.start();
        running.add(process);
        backendRuns.incrementAndGet();
        ScheduledFuture<?> deadline = reaper.schedule(() -> kill(process), TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        // stdin and stderr each on their own thread: http-backend may answer before reading all of a body, or fill
        // stderr while we wait on stdout, and either would otherwise deadlock.
        pool.submit(() -> feed(exchange.getRequestBody(), process.getOutputStream()));
        Future<Long> drained = pool.submit(() -> process.getErrorStream().transferTo(errors));
        try (InputStream out = new BufferedInputStream(process.getInputStream())) {
            respond(exchange, method, path, query, authorization, out);
        } finally {
            try {
                if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    kill(process);
                }
                drained.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                kill(process); // the client went away mid-answer, or stderr never ended: the run is over either way
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            } finally {
                deadline.cancel(false);
                running.remove(process);
                logStderr(method, path, query, errors.toString(UTF_8));
            }
        }
    }

    /** The CGI/1.1 meta-variables (RFC 3875 section 4.1) for one request, and those http-backend reads. */
    private Map<String, String> cgiEnvironment(HttpExchange exchange, String method, String path, String query) {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", root.toString());
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("LC_ALL", "C");
        env.put("GIT_PROJECT_ROOT", root.toString());
        env.put("GIT_HTTP_EXPORT_ALL", "1");
        env.put("GATEWAY_INTERFACE", "CGI/1.1");
        env.put("SERVER_PROTOCOL", exchange.getProtocol());
        env.put("SERVER_SOFTWARE", "mesa-egress-git-fixture");
        env.put("SERVER_NAME", "localhost");
        env.put("SERVER_PORT", String.valueOf(port()));
        env.put("HTTPS", "on");
        env.put("REQUEST_METHOD", method);
        env.put("SCRIPT_NAME", "");
        env.put("PATH_INFO", path);
        env.put("QUERY_STRING", query);
        env.put("REMOTE_ADDR", exchange.getRemoteAddress().getAddress().getHostAddress());
        env.put("REMOTE_PORT", String.valueOf(exchange.getRemoteAddress().getPort()));
        // REMOTE_USER set is what makes http-backend allow receive-pack (pushes) by default.
        env.put("AUTH_TYPE", "Basic");
        env.put("REMOTE_USER", user);
        var headers = exchange.getRequestHeaders();
        if (headers.getFirst("Content-Type") != null) {
            env.put("CONTENT_TYPE", headers.getFirst("Content-Type"));
        }
        // A chunked body (git's big pushes) has no length: CONTENT_LENGTH stays unset and http-backend reads stdin
        // to EOF. The JDK server has de-chunked it already.
        if (headers.getFirst("Content-Length") != null && headers.getFirst("Transfer-Encoding") == null) {
            env.put("CONTENT_LENGTH", headers.getFirst("Content-Length").trim());
        }
        // Every other header as HTTP_*: http-backend reads HTTP_CONTENT_ENCODING (it inflates gzipped requests
        // itself) and HTTP_GIT_PROTOCOL (protocol v2).
        headers.forEach((name, values) -> {
            if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT)) && name.matches("[A-Za-z0-9-]+")) {
                env.put("HTTP_" + name.toUpperCase(Locale.ROOT).replace('-', '_'), String.join(", ", values));
            }
        });
        return env;
    }

    /** Copies the request body to http-backend's stdin, then closes it so it sees EOF. */
    private static Void feed(InputStream body, OutputStream stdin) {
        try (body; stdin) {
            body.transferTo(stdin);
        } catch (IOException stoppedReading) {
            // http-backend exited or answered without reading it all; closing the body lets the JDK drain the rest.
        }
        return null;
    }

    /** Parses http-backend's CGI response headers from {@code out}, then streams the rest to the client. */
    private void respond(HttpExchange exchange, String method, String path, String query, String authorization, InputStream out)
            throws IOException {
        int status = 200;
        long length = 0; // 0: chunked, as http-backend usually gives no Content-Length
        boolean complete = false;
        for (String line; (line = headerLine(out)) != null; ) {
            if (line.isEmpty()) {
                complete = true;
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                break;
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Status")) {
                status = Integer.parseInt(value.split(" ", 2)[0]); // "Status: 403 Forbidden"
            } else if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value); // given to the JDK, which would otherwise send both it and chunked
            } else {
                exchange.getResponseHeaders().add(name, value);
            }
        }
        if (!complete) {
            // http-backend died before finishing its headers: say so rather than forward half a response.
            seen.add(new Seen(method, path, query, authorization, 502));
            byte[] body = "git http-backend gave no CGI response\n".getBytes(UTF_8);
            exchange.getResponseHeaders().clear();
            exchange.sendResponseHeaders(502, body.length);
            exchange.getResponseBody().write(body);
            return;
        }
        // Recorded before the client hears anything, so a test that waited for git sees every request.
        seen.add(new Seen(method, path, query, authorization, status));
        boolean noBody = method.equals("HEAD") || status == 204 || status == 304;
        exchange.sendResponseHeaders(status, noBody ? -1 : length);
        if (noBody) {
            return;
        }
        // Flushed as it comes, so the client sees progress (sideband) and pack data as git produces them.
        OutputStream body = exchange.getResponseBody();
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = out.read(buffer)) >= 0; ) {
            body.write(buffer, 0, n);
            body.flush();
        }
        body.close();
    }

    /** One CGI header line without its line end (LF or CRLF), or null at EOF. */
    private static String headerLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                return null;
            }
            if (line.size() > 16 * 1024) {
                throw new IOException("CGI header line too long");
            }
            line.write(b);
        }
        String text = line.toString(UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private void logStderr(String method, String path, String query, String text) {
        if (text.isBlank()) {
            return;
        }
        synchronized (stderr) {
            stderr.append(method).append(' ').append(path).append(query.isEmpty() ? "" : "?" + query).append(":\n").append(text);
            if (!text.endsWith("\n")) {
                stderr.append('\n');
            }
        }
    }

    /** Kills {@code process} and everything it started (http-backend runs upload-pack, which runs pack-objects). */
    private static void kill(Process process) {
        // Descendants first: once the parent is gone they are re-parented and no longer found through it.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** Stops the server, kills any git still running for it, and stops its threads. */
    @Override
    public void close() {
        running.forEach(GitSmartHttpServer::kill);
        server.stop(0);
        pool.shutdownNow();
        reaper.shutdownNow();
    }
}
