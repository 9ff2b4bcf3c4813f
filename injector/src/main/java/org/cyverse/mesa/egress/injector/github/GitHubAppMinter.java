package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.List;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.cyverse.mesa.egress.injector.MintContext.SecretReader;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.Minters;

/**
 * GitHub App installation tokens (GitHub REST docs, "Authenticating as a GitHub App installation"):
 * the proxy signs an RS256 JWT with the App's private key ({@code iat} 60 s in the past against
 * clock drift, {@code exp} 9 minutes on, within GitHub's 10, {@code iss} the App's id), then
 * {@code POST /app/installations/{id}/access_tokens} with the job's {@code repositories} and
 * {@code permissions}, and takes GitHub's {@code token} until its {@code expires_at}. Retiring a
 * token is {@code DELETE /installation/token}, authenticated with the token itself. The private
 * key is read from its source for every mint and never kept; the JWT and the token are sent
 * only to {@code api_url}. Messages name GitHub's own message, never a key, JWT or token.
 *
 * <p>A pod's clock may be off: GitHub refuses a JWT whose {@code iat} is in its future or whose
 * {@code exp} is past or more than 10 minutes on (401, with the messages {@link #TIME_REFUSALS}
 * lists). Then the minter takes GitHub's time from the answer's {@code Date} header, signs again
 * with it once, and keeps the difference for later mints and for {@code expires_at} (which is in
 * GitHub's time), as Octokit's {@code auth-app} does.
 */
public final class GitHubAppMinter implements Minter {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** GitHub's REST API version header (the docs' current one). */
    static final String API_VERSION = "2022-11-28";

    private final String credential;
    private final GitHubAppSpec spec;
    private final SecretReader keys;
    private final HttpClient http;
    private final Duration timeout;
    private final Clock clock;
    /** GitHub's time minus this pod's, as the last {@code Date} of a time refusal said; zero until then. */
    private volatile Duration skew = Duration.ZERO;

    /** The messages of GitHub's 401 for a JWT whose times it refuses (as Octokit's auth-app matches them). */
    static final List<String> TIME_REFUSALS = List.of(
            "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
            "'Expiration time' claim ('exp') is too far in the future");

    /** @param http a client that does not follow redirects (the JWT and tokens must not be carried elsewhere) */
    public GitHubAppMinter(String credential, GitHubAppSpec spec, SecretReader keys, HttpClient http, Duration timeout, Clock clock) {
        this.credential = credential;
        this.spec = spec;
        this.keys = keys;
        this.http = http;
        this.timeout = timeout;
        this.clock = clock;
    }

    @Override
    public SecretLease mint(SecretLease previous) throws SecretUnavailableException {
        HttpResponse<String> answer = askForToken();
        Duration seen = answer.statusCode() == 401 && timeRefused(answer) ? gitHubsClock(answer) : null;
        if (seen != null) {
            skew = seen; // signed again once, in GitHub's time
            answer = askForToken();
        }
        if (answer.statusCode() != 201) {
            throw new SecretUnavailableException("credential " + credential + ": GitHub refused to mint an installation token for"
                    + " installation " + spec.installationId() + " (" + answer.statusCode() + " " + message(answer) + "); "
                    + (timeRefused(answer) ? timeHint(seen) : hint(answer.statusCode())));
        }
        try {
            JsonNode json = JSON.readTree(answer.body());
            String token = json.path("token").asText("");
            Instant expires = Instant.parse(json.path("expires_at").asText()).minus(skew); // GitHub's time, made ours
            if (token.isEmpty() || token.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f)) {
                throw new SecretUnavailableException("credential " + credential + ": GitHub's answer holds no usable token");
            }
            return new SecretLease(Secret.of(token), expires, "installation " + spec.installationId() + " until " + expires
                    + (skew.isZero() ? "" : " (signed in GitHub's time: its clock is " + skew.toSeconds() + " s ahead of this pod's)"));
        } catch (IOException | DateTimeParseException e) {
            throw new SecretUnavailableException("credential " + credential + ": GitHub's answer to minting is not the documented"
                    + " {token, expires_at} (" + e.getClass().getSimpleName() + ")");
        }
    }

    @Override
    public void retire(SecretLease lease) throws SecretUnavailableException {
        if (lease.expiresAt() != null && !clock.instant().isBefore(lease.expiresAt())) {
            return; // expired at GitHub too
        }
        HttpResponse<String> answer = send(request("/installation/token", null).header("Authorization", "Bearer " + lease.secret().reveal())
                .DELETE().build(), "revoking", lease.secret().reveal());
        // 204: revoked; 401: the token is no longer valid (revoked or expired already): nothing left to take back.
        if (answer.statusCode() != 204 && answer.statusCode() != 401) {
            throw new SecretUnavailableException("credential " + credential + ": GitHub did not revoke the installation token ("
                    + answer.statusCode() + " " + message(answer) + ")");
        }
    }

    @Override
    public String describe(SecretLease lease) {
        return "installation token of installation " + spec.installationId() + " (expiring " + lease.expiresAt() + ")";
    }

    private HttpResponse<String> askForToken() throws SecretUnavailableException {
        String jwt = jwt();
        ObjectNode body = JSON.createObjectNode();
        var names = body.putArray("repositories");
        spec.repositories().forEach(r -> names.add(r.substring(r.indexOf('/') + 1)));
        ObjectNode permissions = body.putObject("permissions");
        spec.permissions().forEach(permissions::put);
        return send(request("/app/installations/" + spec.installationId() + "/access_tokens", jwt)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).header("Content-Type", "application/json").build(), "minting", jwt);
    }

    /** Whether GitHub refused the JWT for its times. */
    private static boolean timeRefused(HttpResponse<String> answer) {
        String message = message(answer);
        return answer.statusCode() == 401 && TIME_REFUSALS.stream().anyMatch(message::contains);
    }

    /** GitHub's time minus ours, from the answer's {@code Date} (RFC 9110 section 6.6.1, whole seconds), or {@code null} without one. */
    private Duration gitHubsClock(HttpResponse<String> answer) {
        try {
            return answer.headers().firstValue("Date").map(d -> ZonedDateTime.parse(d, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant())
                    .map(theirs -> Duration.between(clock.instant(), theirs).withNanos(0)).orElse(null);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private String timeHint(Duration seen) {
        return seen == null ? "GitHub refused the JWT's times and sent no Date to correct them by: check this pod's clock (NTP)"
                : "GitHub refused the JWT's times even signed with its own time (its clock is " + seen.toSeconds()
                        + " s ahead of this pod's, from its Date header): check this pod's clock (NTP)";
    }

    private String jwt() throws SecretUnavailableException {
        Secret pem = keys.read(spec.privateKey());
        Instant now = clock.instant().plus(skew);
        JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(spec.appId()).issueTime(Date.from(now.minusSeconds(60)))
                .expirationTime(Date.from(now.plus(Duration.ofMinutes(9)))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).type(JOSEObjectType.JWT).build(), claims);
        try {
            jwt.sign(new RSASSASigner(AppKey.parse(pem, credential)));
        } catch (JOSEException e) {
            throw new SecretUnavailableException("credential " + credential + ": the App's JWT could not be signed (" + e.getMessage() + ")");
        }
        return jwt.serialize();
    }

    private HttpRequest.Builder request(String path, String jwt) {
        String base = spec.apiUrl().toString().replaceAll("/+$", "");
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", API_VERSION)
                .header("User-Agent", "mesa-egress");
        return jwt == null ? b : b.header("Authorization", "Bearer " + jwt);
    }

    /** One call to the API; an exception's text is scrubbed of the JWT and the token, which went with the call. */
    private HttpResponse<String> send(HttpRequest request, String what, String... sent) throws SecretUnavailableException {
        return Minters.send(http, request, "credential " + credential + ": GitHub at " + spec.apiUrl() + ", " + what, text -> {
            for (String value : sent) {
                text = text.replace(value, "[redacted]");
            }
            return text;
        });
    }

    /** GitHub's error {@code message} (its documented error body), or the start of the body. */
    private static String message(HttpResponse<String> answer) {
        try {
            JsonNode json = JSON.readTree(answer.body());
            if (json != null && json.hasNonNull("message")) {
                return "\"" + abbreviate(json.get("message").asText()) + "\"";
            }
        } catch (IOException e) {
            // not JSON: fall through
        }
        return answer.body() == null || answer.body().isBlank() ? "(no body)" : "\"" + abbreviate(answer.body()) + "\"";
    }

    private static String abbreviate(String text) {
        String flat = text.replaceAll("[\\x00-\\x1f]", " ");
        return flat.length() <= 200 ? flat : flat.substring(0, 197) + "...";
    }

    private static String hint(int status) {
        return switch (status) {
            case 401 -> "GitHub did not accept the App's JWT: check app_id and that private_key is this App's current key";
            case 403 -> "the App may not do this: check the App's permissions and that the installation is not suspended";
            case 404 -> "no such installation for this App: check installation_id (the App's installations are listed at"
                    + " GET /app/installations)";
            case 422 -> "check repositories (each must be in the installation) and permissions (each within what the App was granted)";
            default -> "retried with backoff";
        };
    }
}
