package org.cyverse.mesa.egress.testpki;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * An upstream's own PKI for tests and benchmarks, independent of the proxy's interception code: a CA and server
 * certificates signed by it, as a real HTTPS upstream on loopback would have.
 */
public final class TestPki {

    private final KeyPair caKeys;
    private final X500Name caName;
    private final X509Certificate ca;

    public TestPki(String name) throws GeneralSecurityException {
        caKeys = keys();
        Instant now = Instant.now();
        X500Name subject = new X500Name("CN=" + name + " test CA");
        caName = subject;
        try {
            var builder = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(2))), subject, caKeys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    new org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils().createSubjectKeyIdentifier(caKeys.getPublic()));
            ca = new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        } catch (Exception e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static KeyPair keys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom()).abs().add(BigInteger.ONE);
    }

    public X509Certificate ca() {
        return ca;
    }

    /** Writes the CA certificate as PEM (for tls.upstream_ca or a client's trust). */
    public Path writeCaPem(Path file) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(ca);
        }
        Files.writeString(file, out.toString());
        return file;
    }

    /** A server SSLContext presenting a certificate for {@code names} (DNS names or IP literals). */
    public SSLContext serverContext(String... names) throws Exception {
        KeyPair keys = keys();
        Instant now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(caName, serial(),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))),
                new X500Name("CN=" + names[0]), keys.getPublic());
        List<GeneralName> sans = new ArrayList<>();
        for (String name : names) {
            boolean ip = Character.isDigit(name.charAt(0)) || name.contains(":");
            sans.add(ip ? new GeneralName(GeneralName.iPAddress, InetAddress.getByName(name).getHostAddress())
                    : new GeneralName(GeneralName.dNSName, name));
        }
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(new GeneralName[0])));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        // The key identifiers RFC 5280 asks for, so that strict verifiers (Python's VERIFY_X509_STRICT) accept the chain.
        var ids = new org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils();
        builder.addExtension(Extension.authorityKeyIdentifier, false, ids.createAuthorityKeyIdentifier(ca));
        builder.addExtension(Extension.subjectKeyIdentifier, false, ids.createSubjectKeyIdentifier(keys.getPublic()));
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", keys.getPrivate(), new char[0], new X509Certificate[] {cert, ca});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, new SecureRandom());
        return context;
    }

    /** A client SSLContext trusting only {@code anchor} (hostname verification stays the client's). */
    public static SSLContext trusting(X509Certificate anchor) throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("anchor", anchor);
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), new SecureRandom());
        return context;
    }
}
