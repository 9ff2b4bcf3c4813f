package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemObject;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tls.ca_cert}/{@code tls.ca_key}: created when both are absent, loaded back, refused when broken. */
class InterceptionCaFilesTest {

    @TempDir
    Path dir;

    @Test
    void createsBothFilesWithAPrivateKeyAndLoadsThemBack() throws Exception {
        Path cert = dir.resolve("run/mesa-egress/ca.pem");
        Path key = dir.resolve("run/mesa-egress/ca.key");
        InterceptionCa created = InterceptionCa.loadOrCreate(cert, key);

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(cert)));
        String pem = Files.readString(cert);
        assertTrue(pem.startsWith("-----BEGIN CERTIFICATE-----"), pem);
        assertEquals(pem, new String(created.pem(), StandardCharsets.US_ASCII));
        assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"));
        assertFalse(pem.contains("PRIVATE"), "the certificate file holds no key");
        try (var leftovers = Files.list(cert.getParent())) {
            assertEquals(2, leftovers.count(), "no temporary files left behind");
        }

        InterceptionCa loaded = InterceptionCa.loadOrCreate(cert, key);
        assertEquals(created.certificate(), loaded.certificate());
        assertArrayEquals(created.key().getEncoded(), loaded.key().getEncoded());
    }

    @Test
    void refusesHalfAPairNamingTheMissingFile() throws Exception {
        InterceptionCa.create(dir);
        Path cert = dir.resolve("ca.pem");
        Path key = dir.resolve("ca.key");

        Files.move(key, dir.resolve("elsewhere.key"));
        IOException noKey = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(noKey.getMessage().contains("CA key " + key + " is missing"), noKey.getMessage());
        assertFalse(Files.exists(key), "a half pair is never completed");

        Files.move(dir.resolve("elsewhere.key"), key);
        Files.delete(cert);
        IOException noCert = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(noCert.getMessage().contains("CA certificate " + cert + " is missing"), noCert.getMessage());
        assertFalse(Files.exists(cert));
    }

    @Test
    void refusesACertificateThatIsNotACa() throws Exception {
        InterceptionCa ca = InterceptionCa.generate(Instant.now());
        LeafCertificateFactory leaves = new LeafCertificateFactory(ca);
        Path cert = Files.writeString(dir.resolve("leaf.pem"), PemFiles.encode(leaves.mint(Destination.parse("example.org", 443), Instant.now())));
        Path key = Files.writeString(dir.resolve("leaf.key"), PemFiles.encode(new JcaPKCS8Generator(leaves.key(), null)));
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(e.getMessage().contains(cert + " is not a conformant CA certificate"), e.getMessage());
        assertTrue(e.getMessage().contains("basicConstraints does not say CA:TRUE"), e.getMessage());
    }

    @Test
    void refusesAHomeMadeCaWithoutTheExtensionsStrictClientsNeed() throws Exception {
        InterceptionCa loose = NonConformantCa.withLooseExtensions();
        Path cert = Files.write(dir.resolve("ca.pem"), loose.pem());
        Path key = Files.writeString(dir.resolve("ca.key"), PemFiles.encode(new JcaPKCS8Generator(loose.key(), null)));
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(e.getMessage().contains("basicConstraints is not critical; no keyUsage extension"), e.getMessage());
    }

    @Test
    void refusesAKeyThatDoesNotBelongToTheCertificate() throws Exception {
        InterceptionCa.create(dir.resolve("a"));
        InterceptionCa.create(dir.resolve("b"));
        Path cert = dir.resolve("a/ca.pem");
        Path key = dir.resolve("b/ca.key");
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(e.getMessage().startsWith("CA key " + key + " does not belong to the certificate " + cert + ": "), e.getMessage());
        assertEquals(java.util.Optional.of(new InterceptionCa.PairProblem(InterceptionCa.Part.KEY, e.getMessage())),
                InterceptionCa.check(cert, key, false), "check finds what loadOrCreate refuses, and names the key as the file to fix");
        assertEquals(java.util.Optional.empty(), InterceptionCa.check(cert, dir.resolve("a/ca.key"), false));
    }

    /** A CA key its group or others may read lets them impersonate every intercepted host (issue 17, item 8). */
    @Test
    void refusesAKeyOthersMayReadUnlessAllowed() throws Exception {
        InterceptionCa.create(dir.resolve("a"));
        Path cert = dir.resolve("a/ca.pem");
        Path key = dir.resolve("a/ca.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(e.getMessage().startsWith("CA key " + key + " may be read by its group and others: "), e.getMessage());
        assertTrue(e.getMessage().contains("tls.allow_readable_key: true"), e.getMessage());
        assertEquals(InterceptionCa.Part.KEY, InterceptionCa.check(cert, key, false).orElseThrow().part());
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--r-----"));
        assertTrue(InterceptionCa.check(cert, key, false).orElseThrow().message().contains("may be read by its group:"));
        assertEquals(java.util.Optional.empty(), InterceptionCa.check(cert, key, true), "allowed: a Secret mounted 0440 for the proxy's group");
        InterceptionCa.loadOrCreate(cert, key, true);
    }

    @Test
    void refusesAnExpiredCa() throws Exception {
        InterceptionCa old = InterceptionCa.generate(Instant.now().minus(CaCertificateFactory.VALIDITY).minus(Duration.ofDays(1)));
        Path cert = Files.write(dir.resolve("ca.pem"), old.pem());
        Path key = Files.writeString(dir.resolve("ca.key"), PemFiles.encode(new JcaPKCS8Generator(old.key(), null)));
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(cert, key));
        assertTrue(e.getMessage().contains("create a new CA"), e.getMessage());
    }

    @Test
    void acceptsATraditionalEcPrivateKeyFile() throws Exception {
        InterceptionCa ca = InterceptionCa.create(dir);
        Path key = dir.resolve("ca.key");
        Files.delete(key);
        // What `openssl ecparam -name prime256v1 -genkey` writes: EC PARAMETERS, then an RFC 5915
        // ECPrivateKey carrying its named curve and public key.
        ECPrivateKey inner = ECPrivateKey.getInstance(PrivateKeyInfo.getInstance(ca.key().getEncoded()).parsePrivateKey());
        ECPrivateKey traditional = new ECPrivateKey(256, inner.getKey(),
                SubjectPublicKeyInfo.getInstance(ca.certificate().getPublicKey().getEncoded()).getPublicKeyData(),
                SECObjectIdentifiers.secp256r1);
        Files.writeString(key, "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
                + PemFiles.encode(new PemObject("EC PRIVATE KEY", traditional.getEncoded())));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------")); // as for any key file
        java.security.interfaces.ECPrivateKey loaded =
                (java.security.interfaces.ECPrivateKey) InterceptionCa.loadOrCreate(dir.resolve("ca.pem"), key).key();
        assertEquals(((java.security.interfaces.ECPrivateKey) ca.key()).getS(), loaded.getS());
    }

    @Test
    void refusesAnUnreadableKeyWithoutQuotingIt() throws Exception {
        InterceptionCa.create(dir);
        Path key = dir.resolve("ca.key");
        String garbage = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n";
        Files.writeString(key, garbage);
        IOException e = assertThrows(IOException.class, () -> InterceptionCa.loadOrCreate(dir.resolve("ca.pem"), key));
        assertTrue(e.getMessage().startsWith(key.toString()), e.getMessage());
        assertFalse(e.getMessage().contains("c2VjcmV0"), e.getMessage());
    }

    @Test
    void createRefusesToOverwriteAndLeavesTheExistingCaAlone() throws Exception {
        InterceptionCa.create(dir);
        List<String> before = List.of(Files.readString(dir.resolve("ca.pem")), Files.readString(dir.resolve("ca.key")));
        FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, () -> InterceptionCa.create(dir));
        assertTrue(e.getMessage().contains("ca.pem"), e.getMessage());
        assertEquals(before, List.of(Files.readString(dir.resolve("ca.pem")), Files.readString(dir.resolve("ca.key"))));

        Files.delete(dir.resolve("ca.pem"));
        assertThrows(FileAlreadyExistsException.class, () -> InterceptionCa.create(dir), "a lone key is not overwritten either");
    }
}
