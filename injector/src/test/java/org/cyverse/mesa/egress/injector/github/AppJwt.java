package org.cyverse.mesa.egress.injector.github;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * The test side of a GitHub App's credentials: an App key as GitHub hands it out, and a check of
 * the JWT the proxy signs with it, as GitHub checks it ("Generating a JSON Web Token (JWT) for a
 * GitHub App": RS256, {@code iat}, {@code exp}, {@code iss} the App's client ID or App ID).
 */
public final class AppJwt {

    private static final String BEARER = "Bearer ";

    private AppJwt() {
    }

    /**
     * The claims GitHub reads from an App's JWT.
     *
     * @param iss the App's client ID or App ID (a JSON string or integer, as GitHub takes either)
     * @param iat when it was issued
     * @param exp when it expires (GitHub refuses one more than 10 minutes ahead)
     */
    public record Claims(String iss, Instant iat, Instant exp) {

        /** From {@code iat} to {@code exp}. */
        public Duration lifetime() {
            return Duration.between(iat, exp);
        }
    }

    /**
     * The claims of the App JWT in {@code authorizationHeader}, which must be
     * {@code Bearer <jwt>} with the JWT's {@code alg} RS256, its signature {@code appKey}'s, and
     * integer {@code iat} and {@code exp} with {@code exp} after {@code iat}, plus an {@code iss}.
     * Whether the times suit GitHub's window is for the caller to assert on the claims.
     *
     * @throws AssertionError saying what is wrong, without the JWT itself
     */
    public static Claims verify(String authorizationHeader, RSAPublicKey appKey) {
        if (authorizationHeader == null) {
            throw new AssertionError("no Authorization header: GitHub wants \"Authorization: Bearer <the App's JWT>\"");
        }
        if (!authorizationHeader.startsWith(BEARER)) {
            int space = authorizationHeader.indexOf(' ');
            throw new AssertionError("Authorization is not \"Bearer <jwt>\" but has the scheme \""
                    + (space < 0 ? "(none)" : authorizationHeader.substring(0, space)) + "\"");
        }
        JWT jwt;
        try {
            jwt = JWTParser.parse(authorizationHeader.substring(BEARER.length()));
        } catch (ParseException e) {
            throw new AssertionError("the bearer is not a JWT: " + e.getMessage(), e);
        }
        // alg "none" parses as a PlainJWT: refused here, before anything in it is believed.
        if (!(jwt instanceof SignedJWT signed)) {
            throw new AssertionError("the JWT is not signed (alg " + jwt.getHeader().getAlgorithm() + "); GitHub wants RS256");
        }
        JWSAlgorithm alg = signed.getHeader().getAlgorithm();
        if (!JWSAlgorithm.RS256.equals(alg)) {
            throw new AssertionError("the JWT is signed with " + alg + "; GitHub wants RS256");
        }
        try {
            if (!signed.verify(new RSASSAVerifier(appKey))) {
                throw new AssertionError("the JWT's RS256 signature is not by the App's key");
            }
        } catch (JOSEException e) {
            throw new AssertionError("the JWT's signature could not be checked: " + e.getMessage(), e);
        }
        // The payload as sent: nimbus's JWTClaimsSet would make iat and exp Dates, truncating a fraction GitHub refuses.
        Map<String, Object> claims = signed.getPayload().toJSONObject();
        if (claims == null) {
            throw new AssertionError("the JWT's payload is not a JSON object of claims");
        }
        Instant iat = seconds(claims, "iat");
        Instant exp = seconds(claims, "exp");
        if (!exp.isAfter(iat)) {
            throw new AssertionError("the JWT expires (exp " + exp + ") no later than it was issued (iat " + iat + ")");
        }
        return new Claims(issuer(claims.get("iss")), iat, exp);
    }

    /** A new App key: RSA 2048, as GitHub's "Generate a private key" makes. */
    public static KeyPair newAppKey() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The private key as PKCS#1 PEM ({@code -----BEGIN RSA PRIVATE KEY-----}), the form of the
     * {@code .pem} file GitHub's "Generate a private key" downloads.
     */
    public static String pkcs1Pem(KeyPair key) {
        // BouncyCastle writes an RSA private key in OpenSSL's traditional form, which is PKCS#1.
        return pem(key.getPrivate());
    }

    /** The private key as PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}), as {@code openssl pkcs8 -topk8 -nocrypt} makes of GitHub's. */
    public static String pkcs8Pem(KeyPair key) {
        try {
            return pem(new JcaPKCS8Generator(key.getPrivate(), null));
        } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(Object object) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /** A NumericDate claim, which GitHub takes only as an integer ("must be an Integer"). */
    private static Instant seconds(Map<String, Object> claims, String name) {
        Object value = claims.get(name);
        if (value == null) {
            throw new AssertionError("the JWT has no " + name + "; GitHub wants iat, exp and iss");
        }
        if (!(value instanceof Long || value instanceof Integer)) {
            throw new AssertionError("the JWT's " + name + " is " + value + " (" + value.getClass().getSimpleName()
                    + "); GitHub wants integer seconds since the epoch");
        }
        return Instant.ofEpochSecond(((Number) value).longValue());
    }

    private static String issuer(Object iss) {
        if (iss instanceof String s && !s.isBlank()) {
            return s;
        }
        if (iss instanceof Long || iss instanceof Integer) {
            return iss.toString();
        }
        throw new AssertionError("the JWT's iss is " + (iss == null ? "missing" : iss + " (" + iss.getClass().getSimpleName() + ")")
                + "; GitHub wants the App's client ID or App ID");
    }
}
