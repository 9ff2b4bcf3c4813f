package org.cyverse.mesa.egress.injector.oauth2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import org.cyverse.mesa.egress.injector.Minters;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * Where an {@code oauth2} credential's tokens come from and go back to: the configured
 * {@code token_url} and {@code revoke_url}, or those an {@code issuer}'s OpenID Provider
 * metadata names (OpenID Connect Discovery 1.0, sections 4 and 3; RFC 8414). The metadata is read
 * at the first mint and again after a failed one (a moved endpoint is found without a restart).
 *
 * <p>The document's {@code issuer} must be the configured one exactly (Discovery section 4.3: a
 * document served for another issuer is an impersonation), and every endpoint it names must be
 * https, or http on loopback as the config allows: a client secret never goes in clear.
 */
final class Endpoints {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The two endpoints the minter calls; {@code revoke} may be {@code null}. */
    record Resolved(URI token, URI revoke) {}

    private final OAuth2Spec spec;
    private final HttpClient http;
    private final Duration timeout;
    private volatile Resolved resolved;

    Endpoints(OAuth2Spec spec, HttpClient http, Duration timeout) {
        this.spec = spec;
        this.http = http;
        this.timeout = timeout;
        if (spec.tokenUrl() != null) {
            resolved = new Resolved(spec.tokenUrl(), spec.revokeUrl());
        }
    }

    /** The endpoints, discovering them when needed; blocks. */
    Resolved get() throws SecretUnavailableException {
        Resolved r = resolved;
        if (r == null) {
            r = discover();
            resolved = r;
        }
        return r;
    }

    /** The endpoints when known, without discovering; {@code null} otherwise. */
    Resolved known() {
        return resolved;
    }

    /** After a failed call: an issuer's document is read again on the next one. */
    void forget() {
        if (spec.issuer() != null) {
            resolved = null;
        }
    }

    private Resolved discover() throws SecretUnavailableException {
        String issuer = spec.issuer().toString();
        URI document = URI.create((issuer.endsWith("/") ? issuer.substring(0, issuer.length() - 1) : issuer)
                + "/.well-known/openid-configuration");
        String where = "OpenID discovery at " + document;
        HttpRequest request = HttpRequest.newBuilder(document).timeout(timeout).header("Accept", "application/json").GET().build();
        HttpResponse<String> response = Minters.send(http, request, where, text -> text);
        if (response.statusCode() != 200) {
            throw new SecretUnavailableException(where + ": answered " + response.statusCode());
        }
        JsonNode metadata;
        try {
            metadata = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SecretUnavailableException(where + ": the answer is not JSON");
        }
        String named = metadata == null ? null : metadata.path("issuer").asText(null);
        if (!issuer.equals(named)) {
            throw new SecretUnavailableException(where + ": the document is for issuer \"" + named + "\", not \"" + issuer
                    + "\" (OpenID Connect Discovery 4.3: refused)");
        }
        URI token = endpoint(metadata, "token_endpoint", where);
        if (token == null) {
            throw new SecretUnavailableException(where + ": the document names no token_endpoint");
        }
        URI revoke = spec.revokeUrl() != null ? spec.revokeUrl() : endpoint(metadata, "revocation_endpoint", where);
        return new Resolved(token, revoke);
    }

    private static URI endpoint(JsonNode metadata, String field, String where) throws SecretUnavailableException {
        String text = metadata.path(field).asText(null);
        if (text == null) {
            return null;
        }
        URI uri;
        try {
            uri = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new SecretUnavailableException(where + ": " + field + " is not a URL");
        }
        if (!safe(uri)) {
            throw new SecretUnavailableException(where + ": " + field + " " + uri
                    + " is not https (plain http only to loopback); the client's credentials would go in clear");
        }
        return uri;
    }

    /** https, or http to a loopback literal or {@code localhost} (as the config's URLs). */
    static boolean safe(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null) {
            return false;
        }
        if (scheme.equals("https")) {
            return true;
        }
        if (!scheme.equals("http")) {
            return false;
        }
        String host = uri.getHost();
        if (host.equals("localhost")) {
            return true;
        }
        boolean literal = host.matches("\\d{1,3}(\\.\\d{1,3}){3}") || host.startsWith("[") && host.endsWith("]");
        if (!literal) {
            return false; // a name: never resolved here
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
