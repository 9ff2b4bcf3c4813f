package org.cyverse.mesa.egress.injector.oauth2;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.cyverse.mesa.egress.injector.MintContext;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.cyverse.mesa.egress.injector.SecretValues;

/**
 * Gets an {@code oauth2} credential's access tokens at its token endpoint (RFC 6749 section 3.2)
 * with its grant, and revokes them (RFC 7009) when they are replaced, at stop and at the kill
 * switch. The credential store calls it one mint at a time, off any event loop, and refreshes
 * ahead of expiry ({@link TokenAnswer} says how long a token is used).
 *
 * <p>What the proxy holds besides the access token travels as the lease's parts, so that every
 * check that knows a credential's values knows them too: the refresh token (the newest, rotated
 * as the server answers: {@link RefreshTokens}), the subject token or assertion, the client
 * secret, and the signature part of each JWT among them (unique per token; the header part is
 * shared by every token of an issuer and is never a needle). A request carrying any of them is a
 * {@code secret_leak}; an answer echoing one is scrubbed.
 *
 * <p>Secrets are read from their references at every mint (a rotated file or an OpenBao update is
 * picked up), sent only to the token and revocation endpoints, and scrubbed from every message.
 */
public final class OAuth2Minter implements Minter {

    /** The part names of a lease (besides the access token). */
    static final String REFRESH_TOKEN = "refresh_token";
    static final String SUBJECT_TOKEN = "subject_token";
    static final String CLIENT_SECRET = "client_secret";
    static final String SIGNATURE = "_signature";

    private final String credential;
    private final OAuth2Spec spec;
    private final MintContext context;
    private final Endpoints endpoints;
    private final RefreshTokens refreshTokens;
    private final ClientCalls client;
    private final AtomicInteger sequence = new AtomicInteger();

    public OAuth2Minter(String credential, OAuth2Spec spec, MintContext context) {
        this.credential = credential;
        this.spec = spec;
        this.context = context;
        this.endpoints = new Endpoints(spec, context.http(), context.timeout());
        this.client = new ClientCalls(credential, spec, context);
        this.refreshTokens = spec.refreshToken() == null ? null
                : RefreshTokens.chain((spec.tokenUrl() != null ? spec.tokenUrl() : spec.issuer()) + " " + spec.clientId() + " " + spec.refreshToken());
    }

    @Override
    public SecretLease mint(SecretLease previous) throws SecretUnavailableException {
        try {
            URI token = endpoints.get().token();
            if (refreshTokens == null) {
                return exchange(token, null);
            }
            synchronized (refreshTokens) { // one refresh per chain, across minters of reloaded configs too
                Secret inSource = readRefreshToken();
                Secret refresh = refreshTokens.current(inSource);
                return exchange(token, refresh);
            }
        } catch (SecretUnavailableException e) {
            endpoints.forget();
            throw e;
        }
    }

    private SecretLease exchange(URI token, Secret refresh) throws SecretUnavailableException {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", spec.grant().wire());
        Map<String, Secret> sent = new LinkedHashMap<>();
        if (refresh != null) {
            sent.put(REFRESH_TOKEN, refresh);
        }
        switch (spec.grant()) {
            case REFRESH_TOKEN -> form.put("refresh_token", refresh.reveal());
            case CLIENT_CREDENTIALS -> { }
            case TOKEN_EXCHANGE -> {
                Secret subject = subject();
                sent.put(SUBJECT_TOKEN, subject);
                form.put("subject_token", subject.reveal());
                form.put("subject_token_type", spec.subjectTokenType());
                form.put("requested_token_type", "urn:ietf:params:oauth:token-type:access_token");
                if (spec.audience() != null) {
                    form.put("audience", spec.audience());
                }
            }
            case JWT_BEARER -> {
                Secret assertion = subject();
                sent.put(SUBJECT_TOKEN, assertion);
                form.put("assertion", assertion.reveal());
            }
        }
        if (spec.scope() != null) {
            form.put("scope", spec.scope());
        }
        String where = "token endpoint " + token + " (" + spec.grant().key() + ")";
        HttpResponse<String> response = client.post(token, form, sent, where);
        Instant received = context.clock().instant();
        if (response.statusCode() != 200) {
            throw OAuth2Errors.of(where, response.statusCode(), response.body(), spec.grant(), spec.audience(), ClientCalls.scrubber(sent));
        }
        TokenAnswer answer = TokenAnswer.read(response, received, where);
        Secret newestRefresh = refresh;
        if (refreshTokens != null && answer.refresh() != null) {
            refreshTokens.rotated(answer.refresh()); // at once: the old one may be revoked already
            newestRefresh = answer.refresh();
        } else if (refreshTokens == null) {
            newestRefresh = answer.refresh(); // kept as a needle only; this grant never sends one
        }
        if (newestRefresh != null) {
            sent.put(REFRESH_TOKEN, newestRefresh);
        }
        if (refresh != null && !refresh.equals(newestRefresh)) {
            sent.put(REFRESH_TOKEN + "_used", refresh); // rotated away, yet still the user's: a needle as long as it is held
        }
        return new SecretLease(answer.access(), answer.usableUntil(), "token " + sequence.incrementAndGet(), parts(answer.access(), sent));
    }

    /** Every value beside the access token that must never reach the agent, and each JWT's signature part. */
    private static Map<String, SecretLease> parts(Secret access, Map<String, Secret> held) {
        Map<String, SecretLease> parts = new LinkedHashMap<>();
        signature(parts, "access_token", access);
        held.forEach((name, value) -> {
            parts.put(name, new SecretLease(value, null, null));
            signature(parts, name, value);
        });
        return parts;
    }

    private static void signature(Map<String, SecretLease> parts, String name, Secret token) {
        JwtParts jwt = JwtParts.of(token.reveal());
        if (jwt != null) {
            parts.put(name + SIGNATURE, new SecretLease(Secret.of(jwt.signature()), null, null));
        }
    }

    @Override
    public boolean retires() {
        return spec.revokeUrl() != null || spec.issuer() != null;
    }

    /**
     * Keycloak (26.7, observed) removes the client from the user's online session when any of its
     * access tokens is revoked, the exchanged ones included: revoking a replaced token mid-job
     * would end the refresh token the next one comes from. Tokens are revoked at stop and kill only.
     */
    @Override
    public boolean retiresReplaced() {
        return false;
    }

    /** RFC 7009: revokes the access token; an issuer without a revocation endpoint has nothing to do. */
    @Override
    public void retire(SecretLease lease) throws SecretUnavailableException {
        revoke(lease.secret(), "access_token");
    }

    /** At stop and kill, when the operator asked: the refresh token too (Keycloak ends the offline session with it). */
    @Override
    public void end() throws SecretUnavailableException {
        if (spec.revokeRefreshToken() && refreshTokens != null) {
            synchronized (refreshTokens) {
                Secret refresh = refreshTokens.current(null);
                if (refresh != null) {
                    revoke(refresh, "refresh_token");
                }
            }
        }
    }

    private void revoke(Secret token, String hint) throws SecretUnavailableException {
        URI revoke = endpoints.get().revoke();
        if (revoke == null) {
            return;
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("token", token.reveal());
        form.put("token_type_hint", hint);
        String where = "revocation endpoint " + revoke;
        Map<String, Secret> sent = new LinkedHashMap<>();
        sent.put(hint, token);
        HttpResponse<String> response = client.post(revoke, form, sent, where);
        if (response.statusCode() != 200) { // RFC 7009 section 2.2: 200 also for a token already invalid
            throw OAuth2Errors.of(where, response.statusCode(), response.body(), spec.grant(), null, ClientCalls.scrubber(sent));
        }
    }

    @Override
    public String describe(SecretLease lease) {
        return "oauth2 " + lease.version();
    }

    /** The subject token (or assertion): read from its reference, or the subject credential's current access token. */
    private Secret subject() throws SecretUnavailableException {
        String other = spec.subjectCredential();
        if (other == null) {
            return client.read(spec.subjectToken(), "subject_token");
        }
        SecretValues values = context.values().get();
        SecretLease lease = values == null ? null : values.lease(other).orElse(null);
        if (lease == null) {
            String why = values == null ? null : values.whyUnavailable(other);
            throw new SecretUnavailableException("credential " + credential + ": its subject, credential " + other
                    + ", has no valid token now" + (why == null ? " (not fetched yet)" : ": " + why));
        }
        return lease.secret();
    }

    private Secret readRefreshToken() throws SecretUnavailableException {
        try {
            return context.secrets().read(spec.refreshToken());
        } catch (SecretUnavailableException e) {
            if (refreshTokens.current(null) != null) {
                return null; // the rotated token in memory serves; the reference is read again next time
            }
            throw client.unavailable("refresh_token", spec.refreshToken(), e);
        }
    }

}
