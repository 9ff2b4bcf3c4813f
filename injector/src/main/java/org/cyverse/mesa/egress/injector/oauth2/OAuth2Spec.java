package org.cyverse.mesa.egress.injector.oauth2;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.injector.CredentialKind;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * {@code oauth2}: access tokens from an OAuth 2.0 / OpenID Connect token endpoint (Keycloak, any
 * RFC 6749 server), minted by {@link OAuth2Minter} and put on requests by the injector as
 * {@code Authorization: Bearer}. Holds references, never values.
 *
 * @param tokenUrl the token endpoint, or {@code null} when {@code issuer} is given
 * @param issuer the issuer whose {@code /.well-known/openid-configuration} names the endpoints, or {@code null}
 * @param clientId the proxy's client at the server
 * @param clientAuth how the client authenticates
 * @param clientSecret for {@code client_secret_basic} and {@code client_secret_post}, else {@code null}
 * @param clientAssertionKey the private key (PEM or JWK) for {@code private_key_jwt}, else {@code null}
 * @param grant how tokens are obtained
 * @param refreshToken the user's refresh or offline token ({@code refresh_token} grant), else {@code null}
 * @param subjectToken the subject token ({@code token_exchange}) or assertion ({@code jwt_bearer}) as a secret reference,
 *     else {@code null}
 * @param subjectTokenType RFC 8693's {@code subject_token_type} ({@code token_exchange})
 * @param audience the one audience tokens are requested for ({@code token_exchange}), or {@code null}
 * @param scope the {@code scope} requested, or {@code null}
 * @param revokeUrl RFC 7009's endpoint, where the proxy's access tokens are revoked at stop and kill; or {@code null}
 * @param revokeRefreshToken whether the refresh token is revoked there too at stop and kill (ends the user's
 *     offline session: only when the operator says so)
 * @param subjectCredential the {@code oauth2} credential whose current access token is the subject token
 *     ({@code subject_token: "credential:NAME"}: the user's token, refreshed by the proxy, exchanged for this
 *     credential's audience), or {@code null}
 */
public record OAuth2Spec(URI tokenUrl, URI issuer, String clientId, ClientAuth clientAuth, SecretRef clientSecret,
        SecretRef clientAssertionKey, Grant grant, SecretRef refreshToken, SecretRef subjectToken, String subjectTokenType,
        String audience, String scope, URI revokeUrl, boolean revokeRefreshToken, String subjectCredential) implements KindSpec {

    /** RFC 8693 section 3: the type of a JWT subject token, the default {@code subject_token_type}. */
    public static final String JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";

    public OAuth2Spec {
        if ((tokenUrl == null) == (issuer == null)) {
            throw new IllegalArgumentException("exactly one of token_url and issuer");
        }
        if (subjectToken != null && subjectCredential != null) {
            throw new IllegalArgumentException("a subject token from a reference or from a credential, not both");
        }
    }

    /** Without a subject credential. */
    public OAuth2Spec(URI tokenUrl, URI issuer, String clientId, ClientAuth clientAuth, SecretRef clientSecret, SecretRef clientAssertionKey,
            Grant grant, SecretRef refreshToken, SecretRef subjectToken, String subjectTokenType, String audience, String scope, URI revokeUrl,
            boolean revokeRefreshToken) {
        this(tokenUrl, issuer, clientId, clientAuth, clientSecret, clientAssertionKey, grant, refreshToken, subjectToken, subjectTokenType,
                audience, scope, revokeUrl, revokeRefreshToken, null);
    }

    @Override
    public CredentialKind kind() {
        return OAuth2Kind.INSTANCE;
    }

    @Override
    public boolean minted() {
        return true;
    }

    @Override
    public List<SecretRef> needs() {
        return Stream.of(clientSecret, clientAssertionKey, refreshToken, subjectToken).filter(r -> r != null).toList();
    }

    @Override
    public String describe(CredentialSpec credential) {
        List<String> facts = new ArrayList<>();
        facts.add("grant " + grant.key());
        facts.add("client " + clientId + " (" + clientAuth.key() + (clientSecret != null ? ", secret " + clientSecret : "")
                + (clientAssertionKey != null ? ", key " + clientAssertionKey : "") + ")");
        if (refreshToken != null) {
            facts.add("refresh token " + refreshToken);
        }
        if (subjectToken != null || subjectCredential != null) {
            facts.add((grant == Grant.JWT_BEARER ? "assertion " : "subject token ")
                    + (subjectToken != null ? subjectToken : "the access token of credential " + subjectCredential));
        }
        if (audience != null) {
            facts.add("audience " + audience);
        }
        if (scope != null) {
            facts.add("scope \"" + scope + "\"");
        }
        facts.add(revokeUrl != null ? "revoked at " + revokeUrl + (revokeRefreshToken ? " (refresh token too)" : "")
                : issuer != null ? "revoked at the issuer's revocation endpoint" + (revokeRefreshToken ? " (refresh token too)" : "")
                : "not revoked (no revoke_url)");
        return "minted: oauth2 access tokens from " + (tokenUrl != null ? tokenUrl : issuer + " (discovery)") + "; " + String.join("; ", facts);
    }
}
