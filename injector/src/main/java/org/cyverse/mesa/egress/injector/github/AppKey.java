package org.cyverse.mesa.egress.injector.github;

import java.io.IOException;
import java.io.StringReader;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateKey;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * A GitHub App's private key from its PEM text: {@code BEGIN RSA PRIVATE KEY} (PKCS#1, what
 * GitHub's "Generate a private key" downloads) or {@code BEGIN PRIVATE KEY} (PKCS#8), read with
 * BouncyCastle's PEM parser. Messages name what is wrong, never the key.
 */
final class AppKey {

    private AppKey() {}

    static RSAPrivateKey parse(Secret pem, String credential) throws SecretUnavailableException {
        Object parsed;
        try (PEMParser parser = new PEMParser(new StringReader(pem.reveal()))) {
            parsed = parser.readObject();
        } catch (IOException | RuntimeException e) {
            throw new SecretUnavailableException("credential " + credential + ": the GitHub App's private_key is not a readable PEM key ("
                    + e.getClass().getSimpleName() + ")");
        }
        PrivateKey key;
        try {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (parsed instanceof PEMKeyPair pair) {
                key = converter.getKeyPair(pair).getPrivate();
            } else if (parsed instanceof PrivateKeyInfo info) {
                key = converter.getPrivateKey(info);
            } else {
                throw new SecretUnavailableException("credential " + credential + ": the GitHub App's private_key holds no private key"
                        + " (expected -----BEGIN RSA PRIVATE KEY----- as GitHub downloads it, or -----BEGIN PRIVATE KEY-----)");
            }
        } catch (IOException e) {
            throw new SecretUnavailableException("credential " + credential + ": the GitHub App's private_key cannot be read as a key");
        }
        if (!(key instanceof RSAPrivateKey rsa)) {
            throw new SecretUnavailableException("credential " + credential + ": the GitHub App's private_key is a " + key.getAlgorithm()
                    + " key; GitHub App keys are RSA (RS256)");
        }
        return rsa;
    }
}
