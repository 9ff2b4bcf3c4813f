package org.cyverse.mesa.egress.injector.oauth2;

import java.util.Arrays;
import java.util.Locale;

/** How an {@code oauth2} credential gets its access tokens: the {@code grant} key and what goes on the wire. */
public enum Grant {
    /** RFC 6749 section 6: a refresh or offline token from a secret reference, rotated as the server answers. */
    REFRESH_TOKEN("refresh_token", "refresh_token"),
    /** RFC 6749 section 4.4: the client's own identity. */
    CLIENT_CREDENTIALS("client_credentials", "client_credentials"),
    /** RFC 8693: a subject token (a projected ServiceAccount token, a user's token) exchanged for one audience. */
    TOKEN_EXCHANGE("token_exchange", "urn:ietf:params:oauth:grant-type:token-exchange"),
    /** RFC 7523 section 2.1: a JWT from an identity the server trusts, as the authorization grant. */
    JWT_BEARER("jwt_bearer", "urn:ietf:params:oauth:grant-type:jwt-bearer");

    private final String key;
    private final String wire;

    Grant(String key, String wire) {
        this.key = key;
        this.wire = wire;
    }

    /** The config's name, also the metric label. */
    public String key() {
        return key;
    }

    /** The {@code grant_type} sent to the token endpoint. */
    public String wire() {
        return wire;
    }

    /** Whether the grant sends a subject token ({@code subject_token} or {@code assertion}). */
    public boolean takesSubjectToken() {
        return this == TOKEN_EXCHANGE || this == JWT_BEARER;
    }

    /** The grant named {@code key} in the config, or {@code null}. */
    public static Grant of(String key) {
        return Arrays.stream(values()).filter(g -> g.key.equals(key.toLowerCase(Locale.ROOT))).findFirst().orElse(null);
    }

    /** The config's names, for messages. */
    public static String keys() {
        return String.join(" | ", Arrays.stream(values()).map(Grant::key).toList());
    }
}
