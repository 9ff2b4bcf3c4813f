package org.cyverse.mesa.egress.injector.oauth2;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.crypto.impl.ECDSA;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.UUID;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * {@code private_key_jwt} (OpenID Connect Core section 9, RFC 7523 section 2.2): a short JWT the
 * client signs with its private key instead of sending a secret. {@code iss} and {@code sub} are
 * the client id, {@code aud} the token endpoint, a fresh {@code jti} each time (servers refuse a
 * replayed one), a lifetime of {@link #LIFETIME}. The key is a PEM private key (RSA: RS256; EC
 * P-256, P-384, P-521: ES256, ES384, ES512) or a JWK with its private part ({@code kid} sent when it
 * has one); read with Nimbus JOSE+JWT, which signs too.
 */
final class ClientAssertion {

    /** RFC 7523 section 3 asks for a short expiry; a minute covers clock skew and a slow server. */
    static final Duration LIFETIME = Duration.ofSeconds(60);

    /** RFC 7523 section 2.2's {@code client_assertion_type}. */
    static final String TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

    private ClientAssertion() {}

    /** A signed assertion of {@code clientId} for {@code tokenEndpoint}; messages never hold the key. */
    static String sign(Secret key, String clientId, URI tokenEndpoint, Clock clock, String credential) throws SecretUnavailableException {
        JWK jwk = parse(key, credential);
        JWSSigner signer;
        JWSAlgorithm algorithm;
        try {
            if (jwk instanceof RSAKey rsa) {
                signer = new RSASSASigner(rsa);
                algorithm = JWSAlgorithm.RS256;
            } else if (jwk instanceof ECKey ec) {
                signer = new ECDSASigner(ec);
                algorithm = ECDSA.resolveAlgorithm(ec.getCurve());
            } else {
                throw new SecretUnavailableException("credential " + credential + ": client_assertion_key is a " + jwk.getKeyType()
                        + " key; private_key_jwt here signs with RSA or EC keys");
            }
        } catch (JOSEException e) {
            throw new SecretUnavailableException("credential " + credential + ": client_assertion_key cannot sign (" + e.getClass().getSimpleName() + ")");
        }
        Date now = Date.from(clock.instant());
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(clientId)
                .subject(clientId)
                .audience(tokenEndpoint.toString())
                .jwtID(UUID.randomUUID().toString())
                .issueTime(now)
                .expirationTime(Date.from(clock.instant().plus(LIFETIME)))
                .build();
        JWSHeader header = new JWSHeader.Builder(algorithm).type(JOSEObjectType.JWT).keyID(jwk.getKeyID()).build();
        SignedJWT jwt = new SignedJWT(header, claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new SecretUnavailableException("credential " + credential + ": signing the client assertion failed ("
                    + e.getClass().getSimpleName() + ")");
        }
        return jwt.serialize();
    }

    private static JWK parse(Secret key, String credential) throws SecretUnavailableException {
        String text = key.reveal().trim();
        try {
            JWK jwk = text.startsWith("{") ? JWK.parse(text) : JWK.parseFromPEMEncodedObjects(text);
            if (!jwk.isPrivate()) {
                throw new SecretUnavailableException("credential " + credential + ": client_assertion_key holds a public key only;"
                        + " private_key_jwt needs the private key");
            }
            return jwk;
        } catch (ParseException | JOSEException | RuntimeException e) {
            throw new SecretUnavailableException("credential " + credential + ": client_assertion_key is not a readable PEM or JWK"
                    + " private key (" + e.getClass().getSimpleName() + ")");
        }
    }
}
