package org.cyverse.mesa.egress.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * An HTTPS resource server on loopback standing for one of CyVerse's services (de.cyverse.org,
 * data.cyverse.org): it accepts a request only with an {@code Authorization: Bearer} access token
 * Keycloak signed for its audience, as those services do, and records every request with what its
 * token said.
 *
 * <p>A token is accepted when, in this order: it is a JWS signed RS256 by a key of the realm's
 * JWKS (fetched without any proxy, again once on an unknown {@code kid}: Keycloak rotates keys);
 * its {@code iss} is the realm's; its {@code typ} is {@code Bearer} (Keycloak's refresh and ID
 * tokens say {@code Refresh} and {@code ID}); it has not expired ({@code exp} with
 * {@value #LEEWAY_SECONDS} s of leeway); its {@code aud} names this server. The first check that
 * fails is the {@link Reason}. A refusal is 401 with {@code WWW-Authenticate: Bearer realm=..,
 * error="invalid_token", error_description=".."} (RFC 6750 section 3; without an error when no
 * token came, section 3.1) and a JSON body naming the reason.
 *
 * <p>Accepted: {@code PUT} or {@code POST /files/{name}} stores the body (201), {@code GET
 * /files/{name}} reads it (404 when absent), {@code DELETE /files/{name}} removes it (204); any
 * other request answers 200 JSON {@code {"sub", "aud", "azp", "path"}}.
 */
public final class BearerCheckingUpstream implements AutoCloseable {

    static final int LEEWAY_SECONDS = 2;

    /** Why a request was refused, first failing check first. */
    public enum Reason {
        MISSING("no bearer token"),
        MALFORMED("not a signed JWT"),
        BAD_SIGNATURE("signature does not verify with the realm's keys"),
        WRONG_ISSUER("issued by another issuer"),
        NOT_ACCESS_TOKEN("not an access token"),
        EXPIRED("expired"),
        WRONG_AUDIENCE("not for this audience");

        private final String description;

        Reason(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }

        /** As it appears in the JSON body: {@code wrong_audience}. */
        public String code() {
            return name().toLowerCase();
        }
    }

    /**
     * One request: what the token said (nulls when there was none or it did not parse) and the
     * verdict ({@code reason} null when accepted).
     */
    public record Seen(String method, String path, boolean accepted, Reason reason,
                       String jti, String sub, List<String> aud, String azp, Instant exp) {}

    private record Verdict(Reason reason, String detail, JWTClaimsSet claims) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpsServer server;
    private final String jwksUrl;
    private final String issuer;
    private final String audience;
    private final HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();
    private volatile JWKSet keys = new JWKSet();

    /** Serves on 127.0.0.1 with {@code context}'s certificate, accepting tokens of {@code issuer} for {@code audience}. */
    public BearerCheckingUpstream(SSLContext context, String jwksUrl, String issuer, String audience) throws IOException {
        this.jwksUrl = jwksUrl;
        this.issuer = issuer;
        this.audience = audience;
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    /** A resource server for the Keycloak's realm and the given client id as audience ({@link Keycloak#DE}, {@link Keycloak#DATA}). */
    public static BearerCheckingUpstream of(SSLContext context, Keycloak keycloak, String audience) throws IOException {
        return new BearerCheckingUpstream(context, keycloak.jwksUrl(), keycloak.issuer(), audience);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String audience() {
        return audience;
    }

    /** Every request so far, in order. */
    public List<Seen> seen() {
        return seen;
    }

    /** A stored file's bytes, or null. */
    public byte[] file(String name) {
        return files.get(name);
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        Verdict verdict = check(exchange.getRequestHeaders().getFirst("Authorization"));
        JWTClaimsSet c = verdict.claims();
        seen.add(new Seen(method, path, verdict.reason() == null, verdict.reason(),
                c == null ? null : c.getJWTID(), c == null ? null : c.getSubject(), c == null ? null : c.getAudience(),
                c == null ? null : (String) c.getClaim("azp"), c == null || c.getExpirationTime() == null ? null : c.getExpirationTime().toInstant()));
        if (verdict.reason() != null) {
            refuse(exchange, verdict);
            return;
        }
        ObjectNode who = JSON.createObjectNode();
        who.put("sub", c.getSubject());
        who.putPOJO("aud", c.getAudience());
        who.put("azp", (String) c.getClaim("azp"));
        who.put("path", path);
        if (path.startsWith("/files/") && path.length() > "/files/".length()) {
            String name = path.substring("/files/".length());
            switch (method) {
                case "PUT", "POST" -> {
                    files.put(name, body);
                    who.put("bytes", body.length);
                    send(exchange, 201, "application/json", JSON.writeValueAsBytes(who));
                }
                case "GET" -> {
                    byte[] stored = files.get(name);
                    if (stored == null) {
                        send(exchange, 404, "application/json", "{\"error\":\"not_found\"}".getBytes(StandardCharsets.UTF_8));
                    } else {
                        send(exchange, 200, "application/octet-stream", stored);
                    }
                }
                case "DELETE" -> {
                    files.remove(name);
                    exchange.sendResponseHeaders(204, -1);
                    exchange.close();
                }
                default -> send(exchange, 405, "application/json", "{\"error\":\"method_not_allowed\"}".getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        send(exchange, 200, "application/json", JSON.writeValueAsBytes(who));
    }

    private Verdict check(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7) || authorization.substring(7).isBlank()) {
            return new Verdict(Reason.MISSING, "no Authorization: Bearer", null);
        }
        SignedJWT jwt;
        JWTClaimsSet claims;
        try {
            jwt = SignedJWT.parse(authorization.substring(7).trim());
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            return new Verdict(Reason.MALFORMED, e.getMessage(), null);
        }
        if (!JWSAlgorithm.RS256.equals(jwt.getHeader().getAlgorithm())) {
            return new Verdict(Reason.BAD_SIGNATURE, "alg " + jwt.getHeader().getAlgorithm() + " is not RS256", claims);
        }
        RSAKey key = key(jwt.getHeader().getKeyID());
        try {
            if (key == null || !jwt.verify(new RSASSAVerifier(key))) {
                return new Verdict(Reason.BAD_SIGNATURE, key == null ? "no realm key " + jwt.getHeader().getKeyID() : "signature does not verify", claims);
            }
        } catch (JOSEException e) {
            return new Verdict(Reason.BAD_SIGNATURE, e.getMessage(), claims);
        }
        if (!issuer.equals(claims.getIssuer())) {
            return new Verdict(Reason.WRONG_ISSUER, "iss " + claims.getIssuer() + " is not " + issuer, claims);
        }
        if (!"Bearer".equals(claims.getClaim("typ"))) {
            return new Verdict(Reason.NOT_ACCESS_TOKEN, "typ " + claims.getClaim("typ") + " is not Bearer", claims);
        }
        if (claims.getExpirationTime() == null
                || Instant.now().isAfter(claims.getExpirationTime().toInstant().plusSeconds(LEEWAY_SECONDS))) {
            return new Verdict(Reason.EXPIRED, "exp " + claims.getExpirationTime() + " has passed", claims);
        }
        if (claims.getAudience() == null || !claims.getAudience().contains(audience)) {
            return new Verdict(Reason.WRONG_AUDIENCE, "aud " + claims.getAudience() + " does not name " + audience, claims);
        }
        return new Verdict(null, null, claims);
    }

    /** The realm's key with this kid, fetching the JWKS again when it is not known yet. */
    private RSAKey key(String kid) {
        JWK known = keys.getKeyByKeyId(kid);
        if (known == null) {
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(jwksUrl)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                keys = JWKSet.parse(response.body());
            } catch (IOException | ParseException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            known = keys.getKeyByKeyId(kid);
        }
        return known instanceof RSAKey rsa ? rsa : null;
    }

    private void refuse(HttpExchange exchange, Verdict verdict) throws IOException {
        String challenge = verdict.reason() == Reason.MISSING
                ? "Bearer realm=\"" + audience + "\""
                : "Bearer realm=\"" + audience + "\", error=\"invalid_token\", error_description=\""
                        + verdict.reason().description() + "\"";
        exchange.getResponseHeaders().add("WWW-Authenticate", challenge);
        ObjectNode answer = JSON.createObjectNode();
        answer.put("error", "invalid_token");
        answer.put("reason", verdict.reason().code());
        answer.put("error_description", verdict.reason().description() + ": " + verdict.detail());
        send(exchange, 401, "application/json", JSON.writeValueAsBytes(answer));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
