package org.cyverse.mesa.egress.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * A Git LFS server as GitHub runs one, which cannot run here: the batch API on the git host
 * ({@code POST /{owner}/{repo}.git/info/lfs/objects/batch}, Basic {@code x-access-token:<token>} as
 * git's) and the object store it sends clients to, on another host, with no credentials of its
 * own (a presigned URL's). Shaped as git-lfs's own API documentation gives it
 * ({@code docs/api/batch.md} and {@code docs/api/basic-transfers.md} of git-lfs/git-lfs, v3.3):
 * request {@code {operation, transfers, objects: [{oid, size}], ref}}; answer
 * {@code application/vnd.git-lfs+json} {@code {transfer: "basic", objects: [{oid, size,
 * authenticated, actions: {download|upload: {href, header, expires_in}}}]}}; an object the server
 * lacks on download is the object's {@code error: {code: 404, message}}; no or wrong credentials
 * are 401 with {@code {message}}. Uploads are kept: a download of them serves them.
 */
public final class FakeGitLfs implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LFS_JSON = "application/vnd.git-lfs+json";

    /** One request as the server saw it. */
    public record Seen(String server, String method, String path, String authorization) {}

    private final HttpsServer api;
    private final HttpsServer objects;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final String objectsHost;
    private final String expectedAuthorization;
    private final Map<String, byte[]> stored = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    private FakeGitLfs(SSLContext apiTls, SSLContext objectsTls, String objectsHost, String token) throws IOException {
        this.objectsHost = objectsHost;
        this.expectedAuthorization = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + token).getBytes(UTF_8));
        api = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        api.setHttpsConfigurator(new HttpsConfigurator(apiTls));
        api.setExecutor(pool);
        api.createContext("/", this::batch);
        objects = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        objects.setHttpsConfigurator(new HttpsConfigurator(objectsTls));
        objects.setExecutor(pool);
        objects.createContext("/", this::transfer);
        api.start();
        objects.start();
    }

    /**
     * Starts the batch API (presenting {@code apiTls}'s certificate, accepting only the installation
     * {@code token} as git sends it) and the object store (presenting {@code objectsTls}'s, under
     * the name {@code objectsHost} in the hrefs it hands out), both on 127.0.0.1.
     */
    public static FakeGitLfs start(SSLContext apiTls, SSLContext objectsTls, String objectsHost, String token) throws IOException {
        return new FakeGitLfs(apiTls, objectsTls, objectsHost, token);
    }

    public int apiPort() {
        return api.getAddress().getPort();
    }

    public int objectsPort() {
        return objects.getAddress().getPort();
    }

    /** Keeps {@code content} as the object {@code oid} (its SHA-256, hex). */
    public void store(String oid, byte[] content) {
        stored.put(oid, content.clone());
    }

    /** The object {@code oid} as uploaded, or {@code null}. */
    public byte[] object(String oid) {
        byte[] b = stored.get(oid);
        return b == null ? null : b.clone();
    }

    /** Every request, in order. */
    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    private void batch(HttpExchange x) throws IOException {
        try (x) {
            String authorization = x.getRequestHeaders().getFirst("Authorization");
            seen.add(new Seen("api", x.getRequestMethod(), x.getRequestURI().getPath(), authorization));
            byte[] body = x.getRequestBody().readAllBytes();
            if (!x.getRequestMethod().equals("POST") || !x.getRequestURI().getPath().endsWith("/info/lfs/objects/batch")) {
                answer(x, 404, "{\"message\":\"Not Found\"}");
                return;
            }
            if (!expectedAuthorization.equals(authorization)) {
                x.getResponseHeaders().add("LFS-Authenticate", "Basic realm=\"GitHub\"");
                answer(x, 401, "{\"message\":\"Credentials needed\",\"documentation_url\":\"https://docs.github.com\"}");
                return;
            }
            JsonNode asked = JSON.readTree(body);
            String operation = asked.path("operation").asText();
            ObjectNode out = JSON.createObjectNode().put("transfer", "basic");
            ArrayNode list = out.putArray("objects");
            for (JsonNode o : asked.path("objects")) {
                String oid = o.path("oid").asText();
                ObjectNode one = list.addObject().put("oid", oid).put("size", o.path("size").asLong()).put("authenticated", true);
                String href = "https://" + objectsHost + ":" + objectsPort() + "/objects/" + oid;
                if (operation.equals("download") && !stored.containsKey(oid)) {
                    one.putObject("error").put("code", 404).put("message", "Object does not exist");
                } else if (operation.equals("download") || !stored.containsKey(oid)) {
                    one.putObject("actions").putObject(operation).put("href", href).put("expires_in", 3600).putObject("header");
                } // an upload the server has already: no actions, as the spec says
            }
            answer(x, 200, out.toString());
        }
    }

    private void transfer(HttpExchange x) throws IOException {
        try (x) {
            seen.add(new Seen("objects", x.getRequestMethod(), x.getRequestURI().getPath(), x.getRequestHeaders().getFirst("Authorization")));
            String oid = x.getRequestURI().getPath().substring("/objects/".length());
            if (x.getRequestMethod().equals("PUT")) {
                stored.put(oid, x.getRequestBody().readAllBytes());
                x.sendResponseHeaders(200, -1);
                return;
            }
            byte[] content = stored.get(oid);
            if (content == null) {
                x.sendResponseHeaders(404, -1);
                return;
            }
            x.getResponseHeaders().add("Content-Type", "application/octet-stream");
            x.sendResponseHeaders(200, content.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(content);
            }
        }
    }

    private static void answer(HttpExchange x, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(UTF_8);
        x.getResponseHeaders().add("Content-Type", LFS_JSON);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        api.stop(0);
        objects.stop(0);
        pool.shutdownNow();
    }
}
