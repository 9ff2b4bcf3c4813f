package org.cyverse.mesa.egress.tls;

import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * Deliberately broken interception CAs, as home-made CA scripts produce them, to show that the
 * client tests notice what {@link CaCertificateFactory} adds.
 */
final class NonConformantCa {

    private NonConformantCa() {}

    /** A v3 self-signed certificate without a single extension: it never says it is a CA. */
    static InterceptionCa withoutExtensions() {
        return build(false);
    }

    /** CA:TRUE, but basicConstraints not critical and no keyUsage: lax verifiers accept it, strict ones do not. */
    static InterceptionCa withLooseExtensions() {
        return build(true);
    }

    private static InterceptionCa build(boolean basicConstraints) {
        KeyPair keys = CertificateSigning.newEcP256KeyPair();
        X500Name name = new X500Name("CN=home-made test CA");
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, CertificateSigning.randomSerial(),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), name, keys.getPublic());
        if (basicConstraints) {
            try {
                builder.addExtension(Extension.basicConstraints, false, new BasicConstraints(true));
                builder.addExtension(Extension.subjectKeyIdentifier, false, CertificateSigning.subjectKeyIdentifier(keys.getPublic()));
            } catch (CertIOException e) {
                throw new IllegalStateException(e);
            }
        }
        return new InterceptionCa(CertificateSigning.sign(builder, keys.getPrivate()), keys.getPrivate());
    }
}
