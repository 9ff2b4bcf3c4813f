package org.cyverse.mesa.egress.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import org.bouncycastle.asn1.x509.Extension;

/**
 * The interception CA: a conformant X.509v3 CA (basicConstraints critical CA:TRUE pathLen 0,
 * keyUsage critical keyCertSign+cRLSign, subject key identifier, a subject that says what it is,
 * bounded validity), whose key never leaves the proxy. Python 3.13's strict verification refuses
 * CAs without these extensions.
 *
 * <p>A CA brought by the operator is held to the same profile when loaded: a CA that a strict
 * client would refuse fails at start, with the reason, instead of failing every intercepted
 * request later.
 */
public final class InterceptionCa {

    /** The certificate's file name in the directory that {@link #create} writes. */
    public static final String CERT_FILE = "ca.pem";

    /** The key's file name in the directory that {@link #create} writes (mode 0600). */
    public static final String KEY_FILE = "ca.key";

    private static final Logger LOG = Logger.getLogger(InterceptionCa.class.getName());

    private final X509Certificate certificate;
    private final PrivateKey key;
    private final byte[] pem;

    /** Holds a pair as is; the factories check it first. Tests use it to build deliberately broken CAs. */
    InterceptionCa(X509Certificate certificate, PrivateKey key) {
        this.certificate = Objects.requireNonNull(certificate, "certificate");
        this.key = Objects.requireNonNull(key, "key");
        this.pem = PemFiles.encode(certificate).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Loads the CA from PEM files, or creates both (directories included, key file mode 0600)
     * when both are absent.
     *
     * @throws IOException naming the file when only one exists, when a file is unreadable, or when
     *     the certificate is not a CA or does not match the key
     */
    public static InterceptionCa loadOrCreate(Path certFile, Path keyFile) throws IOException {
        return loadOrCreate(certFile, keyFile, false);
    }

    /**
     * As {@link #loadOrCreate(Path, Path)}; {@code allowReadableKey} ({@code tls.allow_readable_key})
     * takes a key its group or others may read, with a warning, instead of refusing it.
     */
    public static InterceptionCa loadOrCreate(Path certFile, Path keyFile, boolean allowReadableKey) throws IOException {
        if (!Files.exists(certFile) && !Files.exists(keyFile)) {
            InterceptionCa ca = generate(Instant.now());
            ca.write(certFile, keyFile);
            return ca;
        }
        InterceptionCa ca = read(certFile, keyFile, allowReadableKey);
        warnIfShared(keyFile);
        return ca;
    }

    /** Which file of the pair a {@link PairProblem} is about. */
    public enum Part { CERTIFICATE, KEY }

    /** Why {@link #loadOrCreate} would refuse a pair, and which of its files to fix. */
    public record PairProblem(Part part, String message) {}

    /**
     * What {@link #loadOrCreate} would refuse about the pair, found without creating, writing or
     * logging anything, so that {@code validate} and {@code run} name it before anything starts:
     * half a pair, an unreadable file, a certificate that is not a conformant CA or not valid now,
     * a key that does not belong to it, or (both absent) a directory the new CA cannot be written to.
     */
    public static Optional<PairProblem> check(Path certFile, Path keyFile, boolean allowReadableKey) {
        if (!Files.exists(certFile) && !Files.exists(keyFile)) {
            return unwritable(certFile, Part.CERTIFICATE).or(() -> unwritable(keyFile, Part.KEY));
        }
        try {
            read(certFile, keyFile, allowReadableKey);
            return Optional.empty();
        } catch (PairException e) {
            return Optional.of(new PairProblem(e.part, e.getMessage()));
        } catch (IOException e) {
            return Optional.of(new PairProblem(Part.CERTIFICATE, e.getMessage()));
        }
    }

    /** A problem when {@code file} could not be created: its nearest existing directory is not writable. */
    private static Optional<PairProblem> unwritable(Path file, Part part) {
        Path dir = file.toAbsolutePath().getParent();
        while (dir != null && !Files.exists(dir)) {
            dir = dir.getParent();
        }
        if (dir == null || (Files.isDirectory(dir) && Files.isWritable(dir))) {
            return Optional.empty();
        }
        return Optional.of(new PairProblem(part, file + " does not exist and cannot be created (" + dir
                + (Files.isDirectory(dir) ? " is not writable by this user" : " is not a directory")
                + "): create the CA with mesa-egress ca init, or name a writable place"));
    }

    /** An {@link IOException} that says which file of the pair is at fault. */
    private static final class PairException extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Part part;

        PairException(Part part, String message) {
            super(message);
            this.part = part;
        }
    }

    /** Creates a new CA and writes it to {@code dir/ca.pem} and {@code dir/ca.key} (0600), refusing to overwrite. */
    public static InterceptionCa create(Path dir) throws IOException {
        Path certFile = dir.resolve(CERT_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        for (Path file : List.of(certFile, keyFile)) {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileAlreadyExistsException(file.toString(), null, "already exists; refusing to overwrite a CA");
            }
        }
        InterceptionCa ca = generate(Instant.now());
        ca.write(certFile, keyFile);
        return ca;
    }

    /** A new CA held in memory only. */
    static InterceptionCa generate(Instant now) {
        KeyPair keyPair = CertificateSigning.newEcP256KeyPair();
        return new InterceptionCa(CaCertificateFactory.selfSigned(keyPair, now), keyPair.getPrivate());
    }

    /** Loads and checks a pair: both present, a conformant CA, currently valid, whose public key matches the key. */
    static InterceptionCa read(Path certFile, Path keyFile, boolean allowReadableKey) throws PairException {
        // Half a pair is never completed: a new key would silently invalidate the certificate
        // that agents already trust, or a new certificate would be one they do not trust.
        if (!Files.exists(certFile)) {
            throw new PairException(Part.CERTIFICATE, "CA certificate " + certFile + " is missing but its key " + keyFile
                    + " exists: restore the certificate, or remove the key to create a new CA");
        }
        if (!Files.exists(keyFile)) {
            throw new PairException(Part.KEY, "CA key " + keyFile + " is missing but its certificate " + certFile
                    + " exists: restore the key, or remove the certificate to create a new CA");
        }
        X509Certificate certificate;
        try {
            certificate = PemFiles.readCertificate(certFile);
        } catch (IOException e) {
            throw new PairException(Part.CERTIFICATE, e.getMessage());
        }
        List<String> problems = conformanceProblems(certificate);
        if (!problems.isEmpty()) {
            throw new PairException(Part.CERTIFICATE, certFile + " is not a conformant CA certificate (strict TLS clients such as "
                    + "Python 3.13 would refuse it): " + String.join("; ", problems));
        }
        try {
            certificate.checkValidity();
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            throw new PairException(Part.CERTIFICATE, certFile + " is valid only from " + certificate.getNotBefore().toInstant() + " to "
                    + certificate.getNotAfter().toInstant() + ": create a new CA (mesa-egress ca init)");
        }
        String readers = readersBesideOwner(keyFile);
        if (readers != null && !allowReadableKey) {
            throw new PairException(Part.KEY, "CA key " + keyFile + " may be read by " + readers + ": whoever reads it can impersonate"
                    + " every intercepted host; chmod 600 it, or set tls.allow_readable_key: true where its group is the proxy's alone"
                    + " (a Kubernetes Secret mounted 0440 with the pod's fsGroup)");
        }
        PrivateKey key;
        try {
            key = PemFiles.readPrivateKey(keyFile);
        } catch (IOException e) {
            throw new PairException(Part.KEY, e.getMessage());
        }
        if (!matches(certificate, key)) {
            throw new PairException(Part.KEY, "CA key " + keyFile + " does not belong to the certificate " + certFile
                    + ": give the key that ca init (or openssl) wrote with this certificate");
        }
        return new InterceptionCa(certificate, key);
    }

    /** What keeps {@code certificate} from being a CA that strict verifiers accept; empty when none. */
    static List<String> conformanceProblems(X509Certificate certificate) {
        List<String> problems = new ArrayList<>();
        Set<String> critical = certificate.getCriticalExtensionOIDs();
        if (certificate.getVersion() != 3) {
            problems.add("not an X.509v3 certificate");
        }
        if (certificate.getBasicConstraints() < 0) {
            problems.add("basicConstraints does not say CA:TRUE");
        } else if (critical == null || !critical.contains(Extension.basicConstraints.getId())) {
            problems.add("basicConstraints is not critical");
        }
        boolean[] usage = certificate.getKeyUsage();
        if (usage == null) {
            problems.add("no keyUsage extension");
        } else if (usage.length <= 5 || !usage[5]) {
            problems.add("keyUsage lacks keyCertSign");
        }
        if (certificate.getExtensionValue(Extension.subjectKeyIdentifier.getId()) == null) {
            problems.add("no subjectKeyIdentifier extension");
        }
        return problems;
    }

    /** Proves possession rather than comparing encodings, which works for PKCS#8 keys that carry no public key. */
    private static boolean matches(X509Certificate certificate, PrivateKey key) {
        try {
            byte[] challenge = new byte[32];
            CertificateSigning.RANDOM.nextBytes(challenge);
            String algorithm = CertificateSigning.signatureAlgorithm(key);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false; // different algorithms, or a key the certificate's key type cannot verify
        }
    }

    /** "its group", "others" or "its group and others" when they may read {@code keyFile}; {@code null} when only its owner may. */
    private static String readersBesideOwner(Path keyFile) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(keyFile);
            boolean group = mode.contains(PosixFilePermission.GROUP_READ);
            boolean others = mode.contains(PosixFilePermission.OTHERS_READ);
            return group && others ? "its group and others" : group ? "its group" : others ? "others" : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null; // no POSIX permissions to judge by
        }
    }

    private static void warnIfShared(Path keyFile) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(keyFile);
            mode.remove(PosixFilePermission.OWNER_READ);
            mode.remove(PosixFilePermission.OWNER_WRITE);
            if (!mode.isEmpty()) {
                LOG.warning("CA key " + keyFile + " is accessible to others than its owner (" + mode
                        + "); anyone who can read it can impersonate every intercepted host");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // No POSIX permissions to check (or none readable): nothing to warn about.
        }
    }

    private void write(Path certFile, Path keyFile) throws IOException {
        // Key first: should the certificate fail to be written, the key is removed again, so no
        // half pair is left behind to block the next start.
        PemFiles.writePrivateKey(keyFile, key);
        try {
            PemFiles.writeCertificate(certFile, certificate);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(keyFile);
            throw e;
        }
        LOG.info("created interception CA \"" + certificate.getSubjectX500Principal().getName() + "\", valid until "
                + certificate.getNotAfter().toInstant() + ": certificate " + certFile + ", key " + keyFile + " (mode 0600)");
    }

    /** The CA certificate, the trust anchor agents install. */
    public X509Certificate certificate() {
        return certificate;
    }

    PrivateKey key() {
        return key;
    }

    /** The certificate in PEM, as {@code /ca.pem} serves it. */
    public byte[] pem() {
        return pem.clone();
    }
}
