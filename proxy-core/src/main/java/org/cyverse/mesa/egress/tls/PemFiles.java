package org.cyverse.mesa.egress.tls;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads and writes the CA's PEM files. Writes go to a temporary file in the target directory that
 * is then renamed into place, so a reader never sees half a file; the key's temporary file is
 * created with mode 0600 before a byte is written, so the key is never readable by others, not
 * even for an instant. Error messages name files, never their contents.
 */
final class PemFiles {

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    // The certificate is public: the agent's container reads it (SSL_CERT_FILE and friends).
    private static final FileAttribute<Set<PosixFilePermission>> WORLD_READABLE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--"));

    private PemFiles() {}

    /** The PEM text of {@code object} (a certificate, or a generator such as {@link JcaPKCS8Generator}). */
    static String encode(Object object) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /** The first certificate in {@code file}. */
    static X509Certificate readCertificate(Path file) throws IOException {
        try (PEMParser parser = new PEMParser(reader(file))) {
            for (Object object = next(parser, file); object != null; object = next(parser, file)) {
                if (object instanceof X509CertificateHolder) {
                    return new JcaX509CertificateConverter().getCertificate((X509CertificateHolder) object);
                }
            }
        } catch (CertificateException e) {
            throw new IOException(file + ": not a valid X.509 certificate: " + e.getMessage(), e);
        }
        throw new IOException(file + ": no PEM CERTIFICATE block found");
    }

    /**
     * The first private key in {@code file}: PKCS#8 ({@code PRIVATE KEY}) or OpenSSL's traditional
     * {@code EC PRIVATE KEY} / {@code RSA PRIVATE KEY}. Other blocks ({@code EC PARAMETERS}, which
     * {@code openssl ecparam -genkey} writes first) are skipped.
     */
    static PrivateKey readPrivateKey(Path file) throws IOException {
        try (PEMParser parser = new PEMParser(reader(file))) {
            for (Object object = next(parser, file); object != null; object = next(parser, file)) {
                if (object instanceof PEMKeyPair) {
                    return privateKey(((PEMKeyPair) object).getPrivateKeyInfo(), file);
                }
                if (object instanceof PrivateKeyInfo) {
                    return privateKey((PrivateKeyInfo) object, file);
                }
                if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new IOException(file + ": the key is encrypted; give an unencrypted key (its file mode 0600 protects it)");
                }
            }
        }
        throw new IOException(file + ": no PEM PRIVATE KEY block found");
    }

    private static Object next(PEMParser parser, Path file) throws IOException {
        try {
            return parser.readObject();
        } catch (IOException e) {
            // The parser's message may quote what it failed on, which in a key file is key material.
            throw new IOException(file + ": not a readable PEM file (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static PrivateKey privateKey(PrivateKeyInfo info, Path file) throws IOException {
        String algorithm;
        if (X9ObjectIdentifiers.id_ecPublicKey.equals(info.getPrivateKeyAlgorithm().getAlgorithm())) {
            algorithm = "EC";
        } else if (PKCSObjectIdentifiers.rsaEncryption.equals(info.getPrivateKeyAlgorithm().getAlgorithm())) {
            algorithm = "RSA";
        } else {
            throw new IOException(file + ": unsupported key algorithm " + info.getPrivateKeyAlgorithm().getAlgorithm() + " (use EC or RSA)");
        }
        try {
            // The JDK's own KeyFactory, so the key works with the JDK's TLS and signature providers.
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IOException(file + ": not a valid " + algorithm + " private key");
        }
    }

    /** Writes the certificate (mode 0644), refusing to replace an existing file. */
    static void writeCertificate(Path file, X509Certificate certificate) throws IOException {
        write(file, WORLD_READABLE, encode(certificate));
    }

    /** Writes the key as PKCS#8 (mode 0600 from creation on), refusing to replace an existing file. */
    static void writePrivateKey(Path file, PrivateKey key) throws IOException {
        write(file, OWNER_ONLY, new JcaPKCS8Generator(key, null));
    }

    private static void write(Path file, FileAttribute<Set<PosixFilePermission>> mode, Object pem) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp;
        try {
            temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp", mode);
        } catch (UnsupportedOperationException e) {
            throw new IOException(dir + ": the file system has no POSIX permissions, so " + file.getFileName()
                    + " cannot be made readable by its owner only");
        }
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                // Straight into the file: the key's PEM text never sits in a String that outlives this call.
                OutputStreamWriter out = new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.US_ASCII);
                JcaPEMWriter writer = new JcaPEMWriter(out);
                if (pem instanceof String) {
                    writer.write((String) pem);
                } else {
                    writer.writeObject((JcaPKCS8Generator) pem);
                }
                writer.flush();
                channel.force(true);
            }
            // No REPLACE_EXISTING: an existing file is never overwritten (FileAlreadyExistsException).
            Files.move(temp, file);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static Reader reader(Path file) throws IOException {
        // Latin-1 decodes any byte: a stray non-ASCII byte becomes a parse error, not a charset error.
        return new InputStreamReader(Files.newInputStream(file), StandardCharsets.ISO_8859_1);
    }
}
