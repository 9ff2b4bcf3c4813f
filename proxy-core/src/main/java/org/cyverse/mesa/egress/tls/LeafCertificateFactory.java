package org.cyverse.mesa.egress.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostKind;

/**
 * Mints the leaf certificate for one destination host, signed by the {@link InterceptionCa}. One
 * EC P-256 key pair serves every leaf: the proxy holds all of them anyway, and one key makes a
 * mint a single signature instead of a key generation plus a signature.
 */
final class LeafCertificateFactory {

    /** Clients compare notBefore with their own clock; an hour back tolerates a clock running behind ours. */
    static final Duration BACKDATE = Duration.ofHours(1);

    /** Short: a leaf that escapes (say, in a captured handshake) is of no use for long. */
    static final Duration VALIDITY = Duration.ofHours(24);

    /** X.520 ub-common-name: a longer CN is invalid, so a longer host name goes in the SAN only. */
    private static final int MAX_COMMON_NAME = 64;

    private final X509Certificate caCertificate;
    private final PrivateKey caKey;
    private final X500Name issuer;
    private final AuthorityKeyIdentifier authorityKeyId;
    private final KeyPair leafKeys;
    private final SubjectPublicKeyInfo leafPublicKey;
    private final SubjectKeyIdentifier leafKeyId;

    LeafCertificateFactory(InterceptionCa ca) {
        this.caCertificate = ca.certificate();
        this.caKey = ca.key();
        try {
            // The CA's subject exactly as encoded, so issuer and subject match byte for byte.
            JcaX509CertificateHolder caHolder = new JcaX509CertificateHolder(caCertificate);
            this.issuer = caHolder.getSubject();
            SubjectKeyIdentifier caKeyId = SubjectKeyIdentifier.fromExtensions(caHolder.getExtensions());
            // Path building (and OpenSSL's strict mode) link a leaf to its CA through AKI == CA's SKI.
            this.authorityKeyId = new AuthorityKeyIdentifier((caKeyId != null ? caKeyId
                    : CertificateSigning.subjectKeyIdentifier(caCertificate.getPublicKey())).getKeyIdentifier());
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("the CA certificate cannot be encoded", e);
        }
        this.leafKeys = CertificateSigning.newEcP256KeyPair();
        this.leafPublicKey = SubjectPublicKeyInfo.getInstance(leafKeys.getPublic().getEncoded());
        this.leafKeyId = CertificateSigning.subjectKeyIdentifier(leafKeys.getPublic());
    }

    /** The private key of every leaf. */
    PrivateKey key() {
        return leafKeys.getPrivate();
    }

    /** A leaf for {@code destination.host()}, valid from {@code now - 1h} to {@code now + 24h} (never past the CA). */
    X509Certificate mint(Destination destination, Instant now) {
        boolean named = destination.kind() == HostKind.NAME;
        // Clients check the SAN only (RFC 6125); the CN is for people reading the certificate.
        boolean commonName = destination.host().length() <= MAX_COMMON_NAME;
        X500Name subject = commonName
                ? new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, destination.host()).build()
                : new X500Name(new RDN[0]);
        GeneralName san = named
                ? new GeneralName(GeneralName.dNSName, destination.host())
                : new GeneralName(GeneralName.iPAddress, new DEROctetString(destination.addressBytes()));
        Instant notAfter = now.plus(VALIDITY);
        Instant caNotAfter = caCertificate.getNotAfter().toInstant();
        if (notAfter.isAfter(caNotAfter)) {
            notAfter = caNotAfter;
        }
        X509v3CertificateBuilder builder = new X509v3CertificateBuilder(issuer, CertificateSigning.randomSerial(),
                Date.from(now.minus(BACKDATE)), Date.from(notAfter), subject, leafPublicKey);
        try {
            // RFC 5280 4.2.1.6: with an empty subject the SAN must be critical.
            builder.addExtension(Extension.subjectAlternativeName, !commonName, new GeneralNames(san));
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            // digitalSignature only: an EC key signs the (EC)DHE handshake, it never encrypts a key.
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            builder.addExtension(Extension.authorityKeyIdentifier, false, authorityKeyId);
            builder.addExtension(Extension.subjectKeyIdentifier, false, leafKeyId);
        } catch (CertIOException e) {
            throw new UncheckedIOException(new IOException("cannot encode a leaf extension for " + destination.host(), e));
        }
        return CertificateSigning.sign(builder, caKey);
    }
}
