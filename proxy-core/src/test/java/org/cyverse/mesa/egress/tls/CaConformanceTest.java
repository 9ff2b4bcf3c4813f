package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.Test;

/**
 * The CA and leaf profiles, read back with BouncyCastle the way a verifier parses them: every
 * extension, its criticality and value, and bounded validity.
 */
class CaConformanceTest {

    private final InterceptionCa ca = InterceptionCa.generate(Instant.now());
    private final LeafCertificateFactory leaves = new LeafCertificateFactory(ca);

    @Test
    void theCaIsAConformantX509v3Ca() throws Exception {
        X509CertificateHolder cert = new JcaX509CertificateHolder(ca.certificate());
        Extensions ext = cert.getExtensions();
        assertEquals(3, cert.getVersionNumber());
        assertEquals(cert.getSubject(), cert.getIssuer());
        assertTrue(cert.isSignatureValid(new JcaContentVerifierProviderBuilder().build(ca.certificate().getPublicKey())));

        Extension basic = ext.getExtension(Extension.basicConstraints);
        assertTrue(basic.isCritical(), "basicConstraints must be critical");
        BasicConstraints constraints = BasicConstraints.getInstance(basic.getParsedValue());
        assertTrue(constraints.isCA());
        assertEquals(BigInteger.ZERO, constraints.getPathLenConstraint());

        Extension usage = ext.getExtension(Extension.keyUsage);
        assertTrue(usage.isCritical(), "keyUsage must be critical");
        KeyUsage keyUsage = KeyUsage.getInstance(usage.getParsedValue());
        assertTrue(keyUsage.hasUsages(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        assertFalse(keyUsage.hasUsages(KeyUsage.digitalSignature));

        SubjectKeyIdentifier ski = SubjectKeyIdentifier.fromExtensions(ext);
        assertNotNull(ski, "subjectKeyIdentifier");
        assertFalse(ext.getExtension(Extension.subjectKeyIdentifier).isCritical());
        assertEquals(20, ski.getKeyIdentifier().length);

        String cn = cert.getSubject().getRDNs(BCStyle.CN)[0].getFirst().getValue().toString();
        assertTrue(cn.matches("mesa-egress interception CA [0-9a-f]{8}"), cn);
        assertEquals("mesa-egress", cert.getSubject().getRDNs(BCStyle.O)[0].getFirst().getValue().toString());

        assertEquals("EC", ca.certificate().getPublicKey().getAlgorithm());
        assertEquals("SHA256WITHECDSA", ca.certificate().getSigAlgName().toUpperCase());
        assertSerialIsRandomAndPositive(cert.getSerialNumber());
        Duration validity = Duration.between(cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant());
        assertTrue(validity.compareTo(Duration.ofDays(367)) < 0, "bounded validity: " + validity);
        assertTrue(cert.getNotBefore().toInstant().isBefore(Instant.now()));
        assertTrue(InterceptionCa.conformanceProblems(ca.certificate()).isEmpty());
    }

    @Test
    void twoCasHaveDifferentNamesAndSerials() throws Exception {
        X509Certificate other = InterceptionCa.generate(Instant.now()).certificate();
        assertNotEquals(ca.certificate().getSubjectX500Principal(), other.getSubjectX500Principal());
        assertNotEquals(ca.certificate().getSerialNumber(), other.getSerialNumber());
    }

    @Test
    void aLeafForANameCarriesItsDnsNameAndServerAuth() throws Exception {
        Instant now = Instant.now();
        X509CertificateHolder leaf = new JcaX509CertificateHolder(leaves.mint(Destination.parse("API.Example.org.", 443), now));
        Extensions ext = leaf.getExtensions();
        assertEquals(3, leaf.getVersionNumber());
        assertEquals(new JcaX509CertificateHolder(ca.certificate()).getSubject(), leaf.getIssuer());
        assertTrue(leaf.isSignatureValid(new JcaContentVerifierProviderBuilder().build(ca.certificate().getPublicKey())));
        assertEquals("api.example.org", leaf.getSubject().getRDNs(BCStyle.CN)[0].getFirst().getValue().toString());

        Extension san = ext.getExtension(Extension.subjectAlternativeName);
        assertFalse(san.isCritical());
        GeneralName[] names = GeneralNames.getInstance(san.getParsedValue()).getNames();
        assertEquals(1, names.length);
        assertEquals(GeneralName.dNSName, names[0].getTagNo());
        assertEquals("api.example.org", names[0].getName().toString());

        ExtendedKeyUsage eku = ExtendedKeyUsage.fromExtensions(ext);
        assertTrue(eku.hasKeyPurposeId(KeyPurposeId.id_kp_serverAuth));
        Extension usage = ext.getExtension(Extension.keyUsage);
        assertTrue(usage.isCritical());
        assertEquals(new KeyUsage(KeyUsage.digitalSignature), KeyUsage.getInstance(usage.getParsedValue()));
        assertFalse(BasicConstraints.fromExtensions(ext).isCA());

        byte[] caSki = SubjectKeyIdentifier.fromExtensions(new JcaX509CertificateHolder(ca.certificate()).getExtensions()).getKeyIdentifier();
        assertArrayEquals(caSki, AuthorityKeyIdentifier.fromExtensions(ext).getKeyIdentifierOctets());
        assertNotNull(SubjectKeyIdentifier.fromExtensions(ext));

        assertEquals("EC", leaves.key().getAlgorithm());
        assertSerialIsRandomAndPositive(leaf.getSerialNumber());
        Instant notBefore = leaf.getNotBefore().toInstant();
        Instant notAfter = leaf.getNotAfter().toInstant();
        assertTrue(notBefore.isBefore(now) && !notBefore.isBefore(now.minus(Duration.ofHours(1)).minusSeconds(1)));
        assertTrue(Duration.between(notBefore, notAfter).compareTo(Duration.ofHours(25)) <= 0, "short validity");
        assertTrue(notAfter.isAfter(now.plus(Duration.ofHours(23))));
    }

    @Test
    void leavesForIpAddressesCarryAnIpAddressSan() throws Exception {
        for (String host : List.of("127.0.0.1", "[2001:db8::1]")) {
            Destination destination = Destination.parse(host, 443);
            Extensions ext = new JcaX509CertificateHolder(leaves.mint(destination, Instant.now())).getExtensions();
            GeneralName[] names = GeneralNames.fromExtensions(ext, Extension.subjectAlternativeName).getNames();
            assertEquals(1, names.length);
            assertEquals(GeneralName.iPAddress, names[0].getTagNo(), host);
            assertArrayEquals(destination.addressBytes(), ASN1OctetString.getInstance(names[0].getName()).getOctets(), host);
        }
    }

    @Test
    void aNameTooLongForACommonNameGoesInACriticalSanUnderAnEmptySubject() throws Exception {
        String host = "a".repeat(60) + ".example.org";
        X509CertificateHolder leaf = new JcaX509CertificateHolder(leaves.mint(Destination.parse(host, 443), Instant.now()));
        assertEquals(0, leaf.getSubject().getRDNs().length);
        Extension san = leaf.getExtensions().getExtension(Extension.subjectAlternativeName);
        assertTrue(san.isCritical(), "RFC 5280 4.2.1.6: an empty subject needs a critical SAN");
        assertEquals(host, GeneralNames.getInstance(san.getParsedValue()).getNames()[0].getName().toString());
    }

    @Test
    void aLeafNeverOutlivesItsCa() throws Exception {
        // A CA created a year ago (less 2 h) has 2 h left: the leaf must stop with it.
        Instant created = Instant.now().minus(CaCertificateFactory.VALIDITY).plus(Duration.ofHours(2));
        InterceptionCa old = InterceptionCa.generate(created);
        X509Certificate leaf = new LeafCertificateFactory(old).mint(Destination.parse("example.org", 443), Instant.now());
        assertEquals(old.certificate().getNotAfter(), leaf.getNotAfter());
    }

    private static void assertSerialIsRandomAndPositive(BigInteger serial) {
        assertEquals(1, serial.signum());
        assertTrue(serial.bitLength() <= 159 && serial.bitLength() > 64, "serial bits: " + serial.bitLength());
        assertTrue(serial.toByteArray().length <= 20);
    }
}
