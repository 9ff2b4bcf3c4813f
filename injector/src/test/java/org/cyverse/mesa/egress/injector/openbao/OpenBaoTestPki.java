package org.cyverse.mesa.egress.injector.openbao;

import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A test CA (PEM, for {@code ca_cert}) and a PKCS12 keystore for WireMock's HTTPS port, signed by it. */
public record OpenBaoTestPki(Path caPem, Path keystore) {

    public static final String PASSWORD = "openbao-test";

    /** {@code options} serving HTTPS with this certificate (the WireMock fakes: OpenBao, LiteLLM, GitHub). */
    public com.github.tomakehurst.wiremock.core.WireMockConfiguration tls(com.github.tomakehurst.wiremock.core.WireMockConfiguration options) {
        return options.keystorePath(keystore.toString()).keystoreType("PKCS12").keystorePassword(PASSWORD).keyManagerPassword(PASSWORD);
    }

    public static OpenBaoTestPki create(Path dir) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        KeyPair caKeys = generator.generateKeyPair();
        KeyPair serverKeys = generator.generateKeyPair();
        Instant now = Instant.now();
        X500Name caName = new X500Name("CN=OpenBao test CA");
        var ca = new JcaX509v3CertificateBuilder(caName, serial(), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(2))), caName, caKeys.getPublic());
        ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        X509Certificate caCert = new JcaX509CertificateConverter().getCertificate(
                ca.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        var leaf = new JcaX509v3CertificateBuilder(caName, serial(), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), new X500Name("CN=localhost"), serverKeys.getPublic());
        leaf.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        leaf.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        X509Certificate leafCert = new JcaX509CertificateConverter().getCertificate(
                leaf.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));

        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("openbao", serverKeys.getPrivate(), PASSWORD.toCharArray(), new X509Certificate[] {leafCert, caCert});
        Path keystore = dir.resolve("openbao-server.p12");
        try (OutputStream out = Files.newOutputStream(keystore)) {
            store.store(out, PASSWORD.toCharArray());
        }
        StringWriter pem = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
            writer.writeObject(caCert);
        }
        Path caPem = Files.writeString(dir.resolve("openbao-ca.pem"), pem.toString());
        return new OpenBaoTestPki(caPem, keystore);
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom()).abs().add(BigInteger.ONE);
    }
}
