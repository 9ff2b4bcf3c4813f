package org.cyverse.mesa.egress.injector.openbao;

import io.github.jopenlibs.vault.SslConfig;
import io.github.jopenlibs.vault.VaultException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

/**
 * The trust for OpenBao's server certificate when {@code broker.openbao.ca_cert} names a PEM file:
 * every certificate in it, and nothing else (not the system trust store), so a certificate from
 * some public CA for the same name is not accepted.
 */
final class OpenBaoTrust {

    private OpenBaoTrust() {}

    /** @throws IOException naming the file when it is missing or holds no certificate */
    static SslConfig sslConfig(Path pem) throws IOException {
        KeyStore store;
        try (InputStream in = Files.newInputStream(pem)) {
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new IOException("OpenBao CA file " + pem + " holds no PEM certificate");
            }
            store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate cert : certs) {
                store.setCertificateEntry("openbao-ca-" + i++, cert);
            }
        } catch (NoSuchFileException e) {
            throw new IOException("OpenBao CA file " + pem + " does not exist", e);
        } catch (GeneralSecurityException e) {
            throw new IOException("OpenBao CA file " + pem + " is not a PEM certificate file (" + e.getClass().getSimpleName() + ")", e);
        }
        try {
            // The environment loader is protected: a subclass turns the driver's VAULT_SSL_* lookups off.
            return new SslConfig() {
                {
                    environmentLoader(OpenBaoClient.NO_ENVIRONMENT);
                }
            }.verify(true).trustStore(store).build();
        } catch (VaultException e) {
            throw new IOException("cannot build a TLS context trusting " + pem + " (" + e.getClass().getSimpleName() + ")", e);
        }
    }
}
