package org.cyverse.mesa.egress.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * The interception CA: a conformant X.509v3 CA (basicConstraints critical CA:TRUE pathLen 0,
 * keyUsage critical keyCertSign+cRLSign, subject key identifier, a subject that says what it is,
 * bounded validity), whose key never leaves the proxy. Python 3.13's strict verification refuses
 * CAs without these extensions.
 */
public final class InterceptionCa {

    /**
     * Loads the CA from PEM files, or creates both (directories included, key file mode 0600)
     * when both are absent.
     *
     * @throws IOException naming the file when only one exists, when a file is unreadable, or when
     *     the certificate is not a CA or does not match the key
     */
    public static InterceptionCa loadOrCreate(Path certFile, Path keyFile) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** Creates a new CA and writes it to {@code dir/ca.pem} and {@code dir/ca.key} (0600), refusing to overwrite. */
    public static InterceptionCa create(Path dir) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public X509Certificate certificate() {
        throw new UnsupportedOperationException("TODO");
    }

    PrivateKey key() {
        throw new UnsupportedOperationException("TODO");
    }

    /** The certificate in PEM, as {@code /ca.pem} serves it. */
    public byte[] pem() {
        throw new UnsupportedOperationException("TODO");
    }
}
