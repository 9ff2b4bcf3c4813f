package org.cyverse.mesa.egress.config;

import java.net.URI;
import java.util.List;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.oauth2.ClientAuth;
import org.cyverse.mesa.egress.injector.oauth2.Grant;
import org.cyverse.mesa.egress.injector.oauth2.JwtSentinel;
import org.cyverse.mesa.egress.injector.oauth2.OAuth2Spec;

/**
 * Reads a credential's {@code oauth2} block (SPEC.md, third wave: {@code token_url} or
 * {@code issuer}, {@code client_id}, {@code client_secret} or {@code client_assertion_key},
 * {@code grant} and its inputs, {@code audience}, {@code scope}, {@code revoke_url}; extensions:
 * {@code client_auth}, {@code revoke_refresh_token}), and {@code sentinel: auto}.
 *
 * <p>Each grant takes only its own inputs: a refresh token beside {@code client_credentials}, or
 * an audience on a grant that sends none, is a config error rather than a value silently unused.
 */
final class OAuth2Reader implements KindReader {

    static final List<String> KEYS = List.of("token_url", "issuer", "client_id", "client_secret", "client_assertion_key", "client_auth",
            "grant", "refresh_token", "subject_token", "subject_token_type", "audience", "scope", "revoke_url", "revoke_refresh_token");

    /** {@code subject_token: "credential:NAME"}: the access token of another oauth2 credential of the file. */
    static final String FROM_CREDENTIAL = "credential:";

    /** RFC 6749 appendix A.1 (client_id: VSCHAR) and A.4 (scope: space-separated NQCHAR tokens), without control characters. */
    private static final Pattern PRINTABLE = Pattern.compile("[\\x20-\\x7e]+");
    /** RFC 8693 section 3: token type identifiers are URIs. */
    private static final Pattern TOKEN_TYPE = Pattern.compile("urn:[A-Za-z0-9:._-]+|https?://[\\x21-\\x7e]+");

    @Override
    public String key() {
        return "oauth2";
    }

    @Override
    public Read read(MapReader credential, Context context) {
        if (credential.present("secret")) {
            credential.problem("secret", "an oauth2 credential has no secret: the proxy gets its tokens from the token endpoint"
                    + " (put the user's token under oauth2.refresh_token or oauth2.subject_token)");
        }
        MapReader o = credential.map("oauth2", KEYS);
        if (o == null) {
            return null;
        }
        int before = o.problems().size();
        URI tokenUrl = null;
        URI issuer = null;
        if (o.present("token_url") == o.present("issuer")) {
            o.problem(o.present("token_url") ? "issuer" : "token_url", o.present("token_url")
                    ? "give token_url or issuer, not both"
                    : "is required (or issuer, whose OpenID discovery names it), e.g. "
                            + "https://kc.cyverse.org/realms/CyVerse/protocol/openid-connect/token");
        } else if (o.present("token_url")) {
            tokenUrl = HttpsUrls.read(o, "token_url", "the token endpoint", "https://kc.cyverse.org/realms/CyVerse/protocol/openid-connect/token",
                    "the client's credentials and the user's tokens go with every call");
        } else {
            issuer = HttpsUrls.read(o, "issuer", "the issuer", "https://kc.cyverse.org/realms/CyVerse",
                    "its discovery document names where the client's credentials go");
        }
        String clientId = o.requiredString("client_id");
        if (clientId != null && !PRINTABLE.matcher(clientId).matches()) {
            o.problem("client_id", "must be printable ASCII (RFC 6749 appendix A.1)");
        }
        SecretRef clientSecret = reference(o, "client_secret", context.broker());
        SecretRef assertionKey = reference(o, "client_assertion_key", context.broker());
        ClientAuth auth = clientAuth(o, clientSecret, assertionKey);
        Grant grant = null;
        String grantText = o.requiredString("grant");
        if (grantText != null) {
            grant = Grant.of(grantText);
            if (grant == null) {
                o.problem("grant", "must be one of " + Grant.keys() + ", got \"" + grantText + "\"");
            }
        }
        SecretRef refresh = reference(o, "refresh_token", context.broker());
        SecretRef subject = null;
        String subjectCredential = null;
        String subjectText = o.string("subject_token");
        if (subjectText != null && subjectText.startsWith(FROM_CREDENTIAL)) {
            subjectCredential = subjectText.substring(FROM_CREDENTIAL.length());
            if (!"token_exchange".equals(grantText)) {
                o.problem("subject_token", FROM_CREDENTIAL + "NAME is a subject token for token_exchange only");
            } else if (subjectCredential.isEmpty() || subjectCredential.equals(context.name())) {
                o.problem("subject_token", FROM_CREDENTIAL + " must name another oauth2 credential, whose access token is exchanged");
            }
        } else {
            subject = reference(o, "subject_token", context.broker());
        }
        String subjectType = o.string("subject_token_type");
        String audience = o.string("audience");
        if (grant != null) {
            inputs(o, grant, auth, refresh, subject != null ? subject : subjectCredential, subjectType, audience);
        }
        if (subjectType != null && !TOKEN_TYPE.matcher(subjectType).matches()) {
            o.problem("subject_token_type", "must be a token type URI (RFC 8693 section 3), e.g. " + OAuth2Spec.JWT_TOKEN_TYPE);
        }
        if (audience != null && !PRINTABLE.matcher(audience).matches()) {
            o.problem("audience", "must be printable ASCII: a client id or a URI");
        }
        String scope = o.string("scope");
        if (scope != null && !PRINTABLE.matcher(scope).matches()) {
            o.problem("scope", "must be printable ASCII scope names separated by spaces (RFC 6749 section 3.3)");
        }
        URI revoke = o.present("revoke_url") ? HttpsUrls.read(o, "revoke_url", "the revocation endpoint (RFC 7009)",
                "https://kc.cyverse.org/realms/CyVerse/protocol/openid-connect/revoke", "the tokens and the client's credentials go there")
                : null;
        boolean revokeRefresh = o.bool("revoke_refresh_token", false);
        if (revokeRefresh && grant != null && grant != Grant.REFRESH_TOKEN) {
            o.problem("revoke_refresh_token", "applies to the refresh_token grant only");
        } else if (revokeRefresh && revoke == null && issuer == null) {
            o.problem("revoke_refresh_token", "needs revoke_url (or issuer, whose discovery names the revocation endpoint)");
        }
        if (o.problems().size() != before || clientId == null || grant == null || (tokenUrl == null && issuer == null)) {
            return null;
        }
        OAuth2Spec spec = new OAuth2Spec(tokenUrl, issuer, clientId, auth, clientSecret, assertionKey, grant, refresh, subject,
                grant == Grant.TOKEN_EXCHANGE && subjectType == null ? OAuth2Spec.JWT_TOKEN_TYPE : subjectType, audience, scope,
                revoke, revokeRefresh, subjectCredential);
        String sentinel = "auto".equals(credential.string("sentinel")) ? autoSentinel(credential, context, audience) : null;
        return new Read(spec, null, sentinel, List.of(), null, "Authorization");
    }

    /** A {@code credential:NAME} subject names an oauth2 credential of the file that takes no subject credential itself. */
    @Override
    public void acrossEntries(List<CredentialReader.Entry> entries) {
        for (CredentialReader.Entry entry : entries) {
            OAuth2Spec spec = entry.spec().kind(OAuth2Spec.class);
            if (spec == null || spec.subjectCredential() == null) {
                continue;
            }
            CredentialReader.Entry named = entries.stream().filter(e -> e.spec().name().equals(spec.subjectCredential())).findFirst().orElse(null);
            OAuth2Spec other = named == null ? null : named.spec().kind(OAuth2Spec.class);
            String problem = named == null ? "names no credential of this file (\"" + spec.subjectCredential() + "\")"
                    : other == null ? "names credential " + spec.subjectCredential() + ", which is not an oauth2 credential (its access token is"
                            + " what is exchanged)"
                    : other.subjectCredential() != null ? "names credential " + spec.subjectCredential() + ", which exchanges another"
                            + " credential's token itself: exchange the user's token directly"
                    : null;
            if (problem != null) {
                entry.source().problems().add(lineIn(entry.source(), "oauth2", "subject_token"), entry.key() + ".oauth2.subject_token",
                        problem);
            }
        }
    }

    /** The line of {@code key}'s value in {@code block} of {@code credential}. */
    private static int lineIn(MapReader credential, String block, String key) {
        if (credential.raw(block) instanceof YamlNode.MapNode map) {
            for (YamlNode.Entry e : map.entries()) {
                if (e.key().equals(key)) {
                    return e.value().line();
                }
            }
        }
        return credential.lineOf(block);
    }

    /** The JWT-shaped sentinel, registered as the credential's ({@link CredentialReader} leaves {@code auto} to the kind). */
    private static String autoSentinel(MapReader credential, Context context, String audience) {
        String name = context.name() == null ? "credential" : context.name();
        List<MapReader.Text> hosts = credential.strings("hosts");
        String aud = audience != null ? audience : hosts != null && !hosts.isEmpty() ? hosts.get(0).value() : name;
        String sentinel = JwtSentinel.of(name, aud);
        String other = context.sentinels().putIfAbsent(sentinel, context.key());
        if (other != null) {
            credential.problem("sentinel", "auto gives the same placeholder as " + other + " (same name and audience)");
        }
        return sentinel;
    }

    private static void inputs(MapReader o, Grant grant, ClientAuth auth, SecretRef refresh, Object subject, String subjectType,
            String audience) {
        String grantName = "the " + grant.key() + " grant";
        if (grant == Grant.REFRESH_TOKEN && refresh == null && !o.present("refresh_token")) {
            atGrant(o, "refresh_token", "is required by " + grantName + ": a secret reference to the user's refresh or offline token");
        } else if (grant != Grant.REFRESH_TOKEN && o.present("refresh_token")) {
            o.problem("refresh_token", "is used by the refresh_token grant only, not " + grantName);
        }
        if (grant.takesSubjectToken() && subject == null && !o.present("subject_token")) {
            atGrant(o, "subject_token", "is required by " + grantName + ": a secret reference to the "
                    + (grant == Grant.JWT_BEARER ? "JWT assertion" : "subject token") + ", e.g. file:/var/run/secrets/tokens/kc-token");
        } else if (!grant.takesSubjectToken() && o.present("subject_token")) {
            o.problem("subject_token", "is used by token_exchange and jwt_bearer only, not " + grantName);
        }
        if (grant != Grant.TOKEN_EXCHANGE && subjectType != null) {
            o.problem("subject_token_type", "is used by token_exchange only, not " + grantName);
        }
        if (grant != Grant.TOKEN_EXCHANGE && audience != null) {
            o.problem("audience", grantName + " requests no audience (token_exchange does); limit where the token goes with the"
                    + " credential's hosts, and its audience at the issuer");
        }
        if (grant == Grant.CLIENT_CREDENTIALS && auth == ClientAuth.NONE) {
            o.problem("client_id", "the client_credentials grant needs a confidential client: give client_secret or client_assertion_key");
        }
    }

    /** A missing input, reported at the grant that needs it: that is the line a person reads. */
    private static void atGrant(MapReader o, String key, String message) {
        o.problems().add(o.lineOf("grant"), o.key(key), message);
    }

    /** {@code client_auth}, or what the client's inputs imply: a secret is Basic, a key is private_key_jwt, neither is none. */
    private static ClientAuth clientAuth(MapReader o, SecretRef secret, SecretRef key) {
        if (o.present("client_secret") && o.present("client_assertion_key")) {
            o.problem("client_assertion_key", "give client_secret or client_assertion_key, not both");
        }
        String text = o.string("client_auth");
        ClientAuth implied = key != null ? ClientAuth.PRIVATE_KEY_JWT : secret != null ? ClientAuth.CLIENT_SECRET_BASIC : ClientAuth.NONE;
        if (text == null) {
            return implied;
        }
        ClientAuth auth = ClientAuth.of(text);
        if (auth == null) {
            o.problem("client_auth", "must be client_secret_basic, client_secret_post, private_key_jwt or none, got \"" + text + "\"");
            return implied;
        }
        boolean needsSecret = auth == ClientAuth.CLIENT_SECRET_BASIC || auth == ClientAuth.CLIENT_SECRET_POST;
        if (needsSecret && !o.present("client_secret")) {
            o.problem("client_secret", "is required by client_auth " + auth.key());
        } else if (auth == ClientAuth.PRIVATE_KEY_JWT && !o.present("client_assertion_key")) {
            o.problem("client_assertion_key", "is required by client_auth private_key_jwt: the client's private key (PEM or JWK)");
        } else if (auth == ClientAuth.NONE && (o.present("client_secret") || o.present("client_assertion_key"))) {
            o.problem("client_auth", "none sends no client credentials, yet " + (o.present("client_secret") ? "client_secret" : "client_assertion_key")
                    + " is given");
        } else if (!needsSecret && auth != ClientAuth.NONE && o.present("client_secret")) {
            o.problem("client_secret", "is not used by client_auth " + auth.key());
        }
        return auth;
    }

    /** A secret reference in {@code key}, or {@code null} when absent or invalid (reported). */
    private static SecretRef reference(MapReader o, String key, boolean broker) {
        if (!o.present(key)) {
            return null;
        }
        String text = o.requiredString(key);
        if (text == null) {
            return null;
        }
        if (text.indexOf(':') <= 0 || text.startsWith("http")) {
            o.problem(key, "must be a secret reference (file:, env: or openbao:), never the value itself: it is a secret");
            return null;
        }
        return CredentialReader.secretRef(o, key, text, broker);
    }
}
