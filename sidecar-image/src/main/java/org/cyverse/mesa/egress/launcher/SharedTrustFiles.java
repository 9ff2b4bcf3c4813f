package org.cyverse.mesa.egress.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The trust material the proxy hands to the agent's container through a shared directory (an
 * emptyDir mounted in both): {@code ca.pem} (the interception CA), {@code bundle.pem} (the
 * interception CA plus the system trust plus {@code tls.upstream_ca}, so that {@code SSL_CERT_FILE}
 * and friends keep working for hosts the proxy tunnels instead of intercepting), and
 * {@code truststore.p12} (the same certificates as a PKCS12 trust store for Java agents, password
 * {@value #TRUSTSTORE_PASSWORD}), and {@code node-proxy.cjs}, the preload that takes the fetch and
 * https of a Node older than 24.5 through the proxy variables, which Node ignores
 * ({@code NODE_OPTIONS=--require=...}).
 *
 * <p>Each file is written to a temporary name in the same directory and renamed over the old one,
 * so a reader sees the old file or the new one, never half of one; every file is world-readable
 * (the agent runs as another UID). Never the CA key.
 */
final class SharedTrustFiles {

    static final String CA_FILE = "ca.pem";
    static final String BUNDLE_FILE = "bundle.pem";
    static final String TRUSTSTORE_FILE = "truststore.p12";
    static final String NODE_PRELOAD_FILE = "node-proxy.cjs";
    /**
     * The trust store's password. It protects nothing (the store holds public certificates only);
     * Java needs one to check the store's integrity, and "changeit" is the JDK's own for cacerts.
     */
    static final String TRUSTSTORE_PASSWORD = "changeit";

    private static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");

    private SharedTrustFiles() {}

    /**
     * Writes the three files into {@code dir}, creating it when absent.
     *
     * @param interceptionCa the CA, or {@code null} with {@code tls.intercept: none} (no {@code ca.pem}
     *     is then written, and an old one is removed)
     * @param trusted the other certificates to trust: the system's, then {@code tls.upstream_ca}'s
     * @return the number of distinct certificates in the bundle
     */
    static int write(Path dir, X509Certificate interceptionCa, List<X509Certificate> trusted) throws IOException {
        Files.createDirectories(dir);
        Map<String, X509Certificate> byAlias = distinct(interceptionCa, trusted);
        if (interceptionCa != null) {
            writeAtomically(dir.resolve(CA_FILE), pem(List.of(interceptionCa)));
        } else {
            Files.deleteIfExists(dir.resolve(CA_FILE));
        }
        writeAtomically(dir.resolve(BUNDLE_FILE), pem(byAlias.values()));
        writeAtomically(dir.resolve(TRUSTSTORE_FILE), pkcs12(byAlias));
        writeAtomically(dir.resolve(NODE_PRELOAD_FILE), nodePreload());
        return byAlias.size();
    }

    /**
     * Writes the files for {@code interceptionCa} with the system trust ({@link TrustAnchors#system})
     * and the certificates of {@code upstreamCa} (the config's {@code tls.upstream_ca}, or {@code null}).
     *
     * @return a line for the log saying what was written where
     */
    static String publish(Path dir, X509Certificate interceptionCa, Path upstreamCa, Map<String, String> env) throws IOException {
        TrustAnchors system = TrustAnchors.system(env, TrustAnchors.DEBIAN_BUNDLE);
        List<X509Certificate> trusted = new ArrayList<>(system.certificates());
        String sources = system.certificates().size() + " from " + system.source();
        if (upstreamCa != null) {
            TrustAnchors upstream = TrustAnchors.pemFile(upstreamCa, "tls.upstream_ca");
            trusted.addAll(upstream.certificates());
            sources += ", " + upstream.certificates().size() + " from tls.upstream_ca " + upstreamCa;
        }
        int total = write(dir, interceptionCa, trusted);
        return "wrote " + (interceptionCa == null ? "" : CA_FILE + ", ") + BUNDLE_FILE + ", " + NODE_PRELOAD_FILE + " and " + TRUSTSTORE_FILE
                + " (password " + TRUSTSTORE_PASSWORD + ") to " + dir + ": " + total + " distinct certificates"
                + (interceptionCa == null ? " (no interception CA: tls.intercept is none)" : ", the interception CA")
                + " + " + sources;
    }

    /** The Node preload, as the jar carries it. */
    static byte[] nodePreload() throws IOException {
        try (InputStream in = SharedTrustFiles.class.getResourceAsStream(NODE_PRELOAD_FILE)) {
            if (in == null) {
                throw new IOException("the jar lacks " + NODE_PRELOAD_FILE + " (a broken build)");
            }
            return in.readAllBytes();
        }
    }

    /** Aliases in bundle order, duplicates (same DER) dropped; the interception CA comes first. */
    private static Map<String, X509Certificate> distinct(X509Certificate interceptionCa, List<X509Certificate> trusted)
            throws IOException {
        Map<String, X509Certificate> byAlias = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        List<X509Certificate> all = new ArrayList<>();
        if (interceptionCa != null) {
            all.add(interceptionCa);
        }
        all.addAll(trusted);
        int n = 0;
        for (X509Certificate c : all) {
            if (seen.add(Base64.getEncoder().encodeToString(der(c)))) {
                String alias = c == interceptionCa ? "mesa-egress-interception-ca" : String.format("trusted-%04d", n++);
                byAlias.put(alias, c);
            }
        }
        return byAlias;
    }

    static byte[] pem(Iterable<X509Certificate> certificates) throws IOException {
        StringBuilder text = new StringBuilder();
        Base64.Encoder encoder = Base64.getMimeEncoder(64, new byte[] {'\n'});
        for (X509Certificate c : certificates) {
            text.append("-----BEGIN CERTIFICATE-----\n")
                    .append(encoder.encodeToString(der(c)))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] pkcs12(Map<String, X509Certificate> byAlias) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (Map.Entry<String, X509Certificate> e : byAlias.entrySet()) {
                store.setCertificateEntry(e.getKey(), e.getValue());
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            store.store(bytes, TRUSTSTORE_PASSWORD.toCharArray());
            return bytes.toByteArray();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build the PKCS12 trust store: " + e.getMessage(), e);
        }
    }

    private static byte[] der(X509Certificate c) throws IOException {
        try {
            return c.getEncoded();
        } catch (CertificateEncodingException e) {
            throw new IOException("cannot encode " + c.getSubjectX500Principal() + ": " + e.getMessage(), e);
        }
    }

    /** Temporary file in the same directory (so the rename is atomic), mode 0644, flushed to disk, renamed over {@code file}. */
    static void writeAtomically(Path file, byte[] content) throws IOException {
        Path temp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                    OutputStream out = Channels.newOutputStream(channel)) {
                out.write(content);
                out.flush();
                channel.force(true);
            }
            // createTempFile makes it 0600; the agent's UID must read it. Set explicitly: the umask does not apply.
            Files.setPosixFilePermissions(temp, WORLD_READABLE);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
