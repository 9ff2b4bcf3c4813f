package org.cyverse.mesa.egress.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.testpki.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files written for the agent: ca.pem, bundle.pem, truststore.p12. */
class SharedTrustFilesTest {

    @TempDir
    Path dir;

    @Test
    void writesTheCaTheBundleAndATrustStoreWorldReadableWithoutDuplicates() throws Exception {
        X509Certificate ca = new TestPki("interception").ca();
        X509Certificate a = new TestPki("a").ca();
        X509Certificate b = new TestPki("b").ca();
        Path share = dir.resolve("share/sub");

        assertEquals(3, SharedTrustFiles.write(share, ca, List.of(a, b, a, ca)));

        assertEquals(List.of(ca), TrustAnchors.pemFile(share.resolve("ca.pem"), "test").certificates());
        assertEquals(List.of(ca, a, b), TrustAnchors.pemFile(share.resolve("bundle.pem"), "test").certificates());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(share.resolve("truststore.p12"))) {
            store.load(in, "changeit".toCharArray());
        }
        assertEquals(3, store.size());
        assertTrue(store.isCertificateEntry("mesa-egress-interception-ca"));
        assertEquals(ca, store.getCertificate("mesa-egress-interception-ca"));
        for (String name : List.of("ca.pem", "bundle.pem", "truststore.p12", "node-proxy.cjs")) {
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(share.resolve(name))), name);
        }
        assertTrue(Files.readString(share.resolve("node-proxy.cjs")).contains("undici.globalDispatcher"), "the Node preload");
        try (var files = Files.list(share)) {
            assertEquals(4, files.count(), "no temporary file left");
        }
    }

    @Test
    void aSecondWriteReplacesTheFilesAndWithoutACaRemovesCaPem() throws Exception {
        X509Certificate a = new TestPki("a").ca();
        SharedTrustFiles.write(dir, new TestPki("old").ca(), List.of(a));
        SharedTrustFiles.write(dir, null, List.of(a));
        assertFalse(Files.exists(dir.resolve("ca.pem")));
        assertEquals(List.of(a), TrustAnchors.pemFile(dir.resolve("bundle.pem"), "test").certificates());
    }

    @Test
    void theSystemTrustIsTheVariablesFileThenTheDebianBundleThenTheJdks() throws Exception {
        X509Certificate a = new TestPki("a").ca();
        Path pem = dir.resolve("a.pem");
        Files.write(pem, ("comment lines are skipped\n" + new String(SharedTrustFiles.pem(List.of(a)), StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII));
        Path missing = dir.resolve("no-such-bundle.crt");

        TrustAnchors fromVariable = TrustAnchors.system(Map.of("MESA_EGRESS_SYSTEM_CA_BUNDLE", pem.toString()), missing);
        assertEquals(List.of(a), fromVariable.certificates());
        TrustAnchors fromDebian = TrustAnchors.system(Map.of(), pem);
        assertEquals(pem.toString(), fromDebian.source());
        TrustAnchors fromJdk = TrustAnchors.system(Map.of(), missing);
        assertEquals("the JDK's default trust anchors", fromJdk.source());
        assertTrue(fromJdk.certificates().size() > 50, "the JDK's cacerts");
    }

    @Test
    void trustWritesTheFilesForOneCaCertificateAndRefusesSeveral() throws Exception {
        TestPki pki = new TestPki("shared");
        Path caPem = pki.writeCaPem(dir.resolve("ca.pem"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(List.of("trust", "--ca-cert", caPem.toString(), "--share-dir", dir.resolve("out").toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(pki.ca()), TrustAnchors.pemFile(dir.resolve("out/ca.pem"), "test").certificates());
        assertTrue(TrustAnchors.pemFile(dir.resolve("out/bundle.pem"), "test").certificates().size() > 1, "system trust included");

        // Several certificates: which one would the proxy sign with? Refused rather than guessed.
        Files.write(dir.resolve("two.pem"), SharedTrustFiles.pem(List.of(pki.ca(), new TestPki("other").ca())));
        err.reset();
        assertEquals(2, Main.run(List.of("trust", "--ca-cert", dir.resolve("two.pem").toString(), "--share-dir", dir.resolve("x").toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), Collections.emptyMap()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("exactly one CA certificate"), err.toString(StandardCharsets.UTF_8));
    }
}
