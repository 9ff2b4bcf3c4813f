package org.cyverse.mesa.egress.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Certificates to trust, and where they came from: the system's (what the agent's tools trust
 * when nobody sets {@code SSL_CERT_FILE}) or a PEM file.
 *
 * <p>The system trust is, in this order: the PEM bundle that {@code MESA_EGRESS_SYSTEM_CA_BUNDLE}
 * names; {@code /etc/ssl/certs/ca-certificates.crt} when it exists (Debian and distroless images
 * have it); else the JDK's default trust anchors ({@code lib/security/cacerts}).
 *
 * @param source for the log: the file, or "the JDK's default trust anchors"
 * @param certificates in file order
 */
record TrustAnchors(String source, List<X509Certificate> certificates) {

    /** The variable that points the system trust at another PEM bundle. */
    static final String SYSTEM_BUNDLE_VARIABLE = "MESA_EGRESS_SYSTEM_CA_BUNDLE";
    /** Debian's (and distroless') bundle of the system's trusted CAs. */
    static final Path DEBIAN_BUNDLE = Path.of("/etc/ssl/certs/ca-certificates.crt");

    private static final Pattern PEM_CERTIFICATE =
            Pattern.compile("-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\\s]+?)-----END CERTIFICATE-----");

    TrustAnchors {
        certificates = List.copyOf(certificates);
    }

    /** The system trust, as the class comment orders it. */
    static TrustAnchors system(Map<String, String> env, Path debianBundle) throws IOException {
        String given = env.get(SYSTEM_BUNDLE_VARIABLE);
        if (given != null && !given.isBlank()) {
            return pemFile(Path.of(given.trim()), SYSTEM_BUNDLE_VARIABLE);
        }
        if (Files.isReadable(debianBundle)) {
            return pemFile(debianBundle, "the system CA bundle");
        }
        return jdkDefault();
    }

    /**
     * Every {@code CERTIFICATE} block of a PEM file; text between blocks (comments, OpenSSL's
     * {@code TRUSTED CERTIFICATE} blocks) is skipped.
     *
     * @param what names the setting in the message when the file is unusable
     * @throws IOException when the file cannot be read or holds no certificate
     */
    static TrustAnchors pemFile(Path file, String what) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            // NoSuchFileException's message is the path alone: say what went wrong instead.
            String why = e instanceof NoSuchFileException ? "no such file"
                    : e instanceof AccessDeniedException ? "permission denied" : e.getMessage();
            throw new IOException(what + ": cannot read " + file + ": " + why, e);
        }
        List<X509Certificate> certificates = new ArrayList<>();
        Matcher m = PEM_CERTIFICATE.matcher(text);
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            while (m.find()) {
                byte[] der = Base64.getMimeDecoder().decode(m.group(1));
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (CertificateException | IllegalArgumentException e) {
            throw new IOException(what + ": " + file + " holds a certificate that cannot be parsed: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IOException(what + ": " + file + " holds no PEM certificate");
        }
        return new TrustAnchors(file.toString(), certificates);
    }

    /** The anchors of the JDK's default trust manager (its cacerts, or javax.net.ssl.trustStore). */
    static TrustAnchors jdkDefault() throws IOException {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init((KeyStore) null);
            List<X509Certificate> anchors = new ArrayList<>();
            for (var manager : factory.getTrustManagers()) {
                if (manager instanceof X509TrustManager x509) {
                    anchors.addAll(List.of(x509.getAcceptedIssuers()));
                }
            }
            return new TrustAnchors("the JDK's default trust anchors", anchors);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the JDK's default trust anchors: " + e.getMessage(), e);
        }
    }
}
