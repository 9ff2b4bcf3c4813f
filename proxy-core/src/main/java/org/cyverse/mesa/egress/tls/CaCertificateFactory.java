package org.cyverse.mesa.egress.tls;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * Builds the self-signed interception CA certificate, with exactly the profile strict verifiers
 * (OpenSSL's {@code X509_V_FLAG_X509_STRICT}, which Python 3.13 turns on by default) insist on:
 * basicConstraints critical CA:TRUE pathLen 0, keyUsage critical keyCertSign+cRLSign, a subject
 * key identifier, and a name that tells a person reading a trust store what it is.
 */
final class CaCertificateFactory {

    /** Clients compare notBefore with their own clock; an hour back tolerates a clock running behind ours. */
    static final Duration BACKDATE = Duration.ofHours(1);

    /**
     * One year: bounded, so a CA copied out of a pod (or trusted on a laptop during development)
     * stops being useful on its own, yet long enough for an operator-managed CA ({@code ca init},
     * stored in a Secret) to outlive many jobs. Pods that create their own CA at start use a tiny
     * fraction of it.
     */
    static final Duration VALIDITY = Duration.ofDays(365);

    private CaCertificateFactory() {}

    static X509Certificate selfSigned(KeyPair keyPair, Instant now) {
        // The random id tells two CAs apart in a trust store or a browser's certificate viewer.
        String id = HexFormat.of().formatHex(randomBytes(4));
        X500Name name = new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "mesa-egress")
                .addRDN(BCStyle.CN, "mesa-egress interception CA " + id)
                .build();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, CertificateSigning.randomSerial(),
                Date.from(now.minus(BACKDATE)), Date.from(now.plus(VALIDITY)), name, keyPair.getPublic());
        SubjectKeyIdentifier ski = CertificateSigning.subjectKeyIdentifier(keyPair.getPublic());
        try {
            // pathLen 0: this CA signs leaves only, so a leaked leaf key can never act as a CA.
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false, ski);
            // Optional on a self-signed certificate (RFC 5280 4.2.1.1); present so that verifiers
            // that want an AKI on every certificate of a chain find one.
            builder.addExtension(Extension.authorityKeyIdentifier, false, new AuthorityKeyIdentifier(ski.getKeyIdentifier()));
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode a CA extension", e);
        }
        return CertificateSigning.sign(builder, keyPair.getPrivate());
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        CertificateSigning.RANDOM.nextBytes(bytes);
        return bytes;
    }
}
