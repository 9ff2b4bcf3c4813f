package org.cyverse.mesa.egress.injector.oauth2;

/**
 * How the proxy proves it is the client at the token endpoint (OpenID Connect Core section 9,
 * RFC 6749 section 2.3): the {@code client_auth} key.
 */
public enum ClientAuth {
    /** A public client: {@code client_id} in the form only. */
    NONE("none"),
    /** HTTP Basic with the form-encoded client id and secret (RFC 6749 section 2.3.1); the default with a secret. */
    CLIENT_SECRET_BASIC("client_secret_basic"),
    /** {@code client_id} and {@code client_secret} in the form. */
    CLIENT_SECRET_POST("client_secret_post"),
    /** A JWT signed with the client's private key (RFC 7523 section 2.2); the default with {@code client_assertion_key}. */
    PRIVATE_KEY_JWT("private_key_jwt");

    private final String key;

    ClientAuth(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** The method named {@code key} in the config, or {@code null}. */
    public static ClientAuth of(String key) {
        for (ClientAuth auth : values()) {
            if (auth.key.equals(key)) {
                return auth;
            }
        }
        return null;
    }
}
