package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.cyverse.mesa.egress.tls.InterceptionCa;
import org.junit.jupiter.api.Test;

/** {@code mesa-egress ca init --out DIR} (SPEC.md "Command line"). */
class CaCommandTest extends CommandTestBase {


    @Test
    void initWritesACaAndAPrivateKey() throws Exception {
        Path target = dir.resolve("new/ca");
        assertEquals(0, run("ca", "init", "--out", target.toString()), err());

        Path cert = target.resolve("ca.pem");
        Path key = target.resolve("ca.key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        X509Certificate ca;
        try (InputStream in = Files.newInputStream(cert)) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        assertEquals(0, ca.getBasicConstraints(), "a CA with pathLen 0");
        assertTrue(ca.getSubjectX500Principal().getName().startsWith("CN=mesa-egress interception CA "));
        assertTrue(out().contains("wrote " + cert + " and " + key), out());
        assertTrue(out().contains("sha256 fingerprint: "), out());
        assertFalse(out().contains("PRIVATE KEY") || err().contains("PRIVATE KEY"), "the key is never printed");
        // What the proxy will load from these files.
        assertEquals(ca, InterceptionCa.loadOrCreate(cert, key).certificate());
    }

    @Test
    void initRefusesToOverwriteAnExistingCa() throws Exception {
        assertEquals(0, run("ca", "init", "--out", dir.toString()));
        byte[] before = Files.readAllBytes(dir.resolve("ca.key"));
        reset();

        assertEquals(2, run("ca", "init", "--out", dir.toString()));
        assertTrue(err().contains(dir.resolve("ca.pem") + " already exists; refusing to overwrite"), err());
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(dir.resolve("ca.key"))), "the key is untouched");
    }

    @Test
    void initWithoutOutExits2() {
        assertEquals(2, run("ca", "init"));
        assertTrue(err().contains("--out"), err());
        assertEquals(2, run("ca"));
        assertEquals(2, run("ca", "renew", "--out", dir.toString()));
        assertEquals(2, run("ca", "init", "--bogus", "x"));
    }

    @Test
    void usageListsTheCommand() {
        assertEquals(0, run("help"));
        assertTrue(out().contains("ca init --out DIR"), out());
    }
}
