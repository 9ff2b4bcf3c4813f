package org.cyverse.mesa.egress.injector.oauth2;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.injector.MintContext;
import org.cyverse.mesa.egress.injector.Minters;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * The calls an {@code oauth2} credential's client makes to its issuer (token and revocation
 * endpoints): a form POST with the client's authentication, its secrets read from their
 * references for every call, and every value sent scrubbed from what a failure says.
 */
final class ClientCalls {

    private final String credential;
    private final OAuth2Spec spec;
    private final MintContext context;

    ClientCalls(String credential, OAuth2Spec spec, MintContext context) {
        this.credential = credential;
        this.spec = spec;
        this.context = context;
    }

    /** One form POST with the client's authentication (RFC 6749 section 2.3). */
    HttpResponse<String> post(URI endpoint, Map<String, String> form, Map<String, Secret> sent, String where)
            throws SecretUnavailableException {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(context.timeout())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        Map<String, String> body = new LinkedHashMap<>(form);
        switch (spec.clientAuth()) {
            case NONE -> body.put("client_id", spec.clientId());
            case CLIENT_SECRET_BASIC -> {
                Secret secret = read(spec.clientSecret(), "client_secret");
                sent.put(OAuth2Minter.CLIENT_SECRET, secret);
                // Section 2.3.1: each part form-encoded before Basic's base64.
                String pair = formEncode(spec.clientId()) + ":" + formEncode(secret.reveal());
                request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
            }
            case CLIENT_SECRET_POST -> {
                Secret secret = read(spec.clientSecret(), "client_secret");
                sent.put(OAuth2Minter.CLIENT_SECRET, secret);
                body.put("client_id", spec.clientId());
                body.put("client_secret", secret.reveal());
            }
            case PRIVATE_KEY_JWT -> {
                Secret key = read(spec.clientAssertionKey(), "client_assertion_key");
                body.put("client_id", spec.clientId());
                body.put("client_assertion_type", ClientAssertion.TYPE);
                body.put("client_assertion", ClientAssertion.sign(key, spec.clientId(), endpoint, context.clock(), credential));
            }
        }
        String encoded = body.entrySet().stream().map(e -> formEncode(e.getKey()) + "=" + formEncode(e.getValue()))
                .collect(Collectors.joining("&"));
        request.POST(HttpRequest.BodyPublishers.ofString(encoded, StandardCharsets.US_ASCII));
        return Minters.send(context.http(), request.build(), "credential " + credential + ": " + where, scrubber(sent));
    }

    Secret read(SecretRef ref, String key) throws SecretUnavailableException {
        try {
            return context.secrets().read(ref);
        } catch (SecretUnavailableException e) {
            throw unavailable(key, ref, e);
        }
    }

    SecretUnavailableException unavailable(String key, SecretRef ref, SecretUnavailableException e) {
        return new SecretUnavailableException("credential " + credential + ": " + key + " (" + ref + ") is unavailable: " + e.getMessage(),
                e.revoked(), null);
    }

    /** Replaces every secret of {@code sent} in a message from the server or the HTTP client. */
    static UnaryOperator<String> scrubber(Map<String, Secret> sent) {
        List<Secret> values = new ArrayList<>(sent.values());
        return text -> {
            String scrubbed = text;
            for (Secret s : values) {
                scrubbed = scrubbed.replace(s.reveal(), "[redacted]");
            }
            return scrubbed;
        };
    }

    private static String formEncode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
