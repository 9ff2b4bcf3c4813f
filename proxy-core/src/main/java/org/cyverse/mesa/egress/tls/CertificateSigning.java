package org.cyverse.mesa.egress.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * What every certificate this package issues has in common: EC P-256 keys, random serials, key
 * identifiers and the signature. Uses the JDK's providers only (BouncyCastle builds and parses the
 * ASN.1 but is never registered as a JCA provider, so it changes nothing for the rest of the JVM).
 * Failures here mean a JRE without EC or SHA-256, not bad input: they are unchecked.
 */
final class CertificateSigning {

    static final SecureRandom RANDOM = new SecureRandom();

    private CertificateSigning() {}

    /**
     * A fresh P-256 key pair. P-256 over RSA: the same strength as RSA-3072, keys generated in
     * about a millisecond, and every client we serve (OpenSSL, GnuTLS, the JDK, Node) supports it.
     */
    static KeyPair newEcP256KeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JRE cannot generate EC P-256 keys", e);
        }
    }

    /**
     * A random positive serial of 159 bits: RFC 5280 section 4.1.2.2 allows at most 20 octets
     * (a 160th bit would need a 21st, sign, octet), and the CA/Browser Forum asks for at least 64
     * random bits so that serials cannot be predicted.
     */
    static BigInteger randomSerial() {
        BigInteger serial;
        do {
            serial = new BigInteger(159, RANDOM);
        } while (serial.signum() == 0);
        return serial;
    }

    /** RFC 5280 section 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits (an identifier, not a security use). */
    static SubjectKeyIdentifier subjectKeyIdentifier(PublicKey key) {
        try {
            return new JcaX509ExtensionUtils().createSubjectKeyIdentifier(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JRE has no SHA-1 digest", e);
        }
    }

    /** The signature algorithm for an issuer key: ECDSA or RSA (an operator may bring an RSA CA), always SHA-256. */
    static String signatureAlgorithm(PrivateKey issuerKey) {
        switch (issuerKey.getAlgorithm()) {
            case "EC":
            case "ECDSA":
                return "SHA256withECDSA";
            case "RSA":
                return "SHA256withRSA";
            default:
                throw new IllegalArgumentException("unsupported CA key algorithm " + issuerKey.getAlgorithm() + " (use EC or RSA)");
        }
    }

    /** Signs {@code builder} with {@code issuerKey} and converts the result to a JDK certificate. */
    static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey) {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder(signatureAlgorithm(issuerKey)).setSecureRandom(RANDOM).build(issuerKey)));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate with the " + issuerKey.getAlgorithm() + " CA key", e);
        }
    }
}
