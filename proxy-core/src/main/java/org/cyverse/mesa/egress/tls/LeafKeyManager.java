package org.cyverse.mesa.egress.tls;

import io.netty.handler.ssl.util.SimpleKeyManagerFactory;
import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents one leaf (its chain: leaf, then CA) and the shared leaf key to the TLS server: the
 * JDK's directly, BoringSSL through {@link #asFactory()}.
 *
 * <p>Why not {@code SslContextBuilder.forServer(key, chain)}: Netty then puts the key into a
 * PKCS#12 key store, which encrypts it with PBKDF2 only for the key manager factory to decrypt it
 * again; measured here, that round trip is about 5 of the 6 ms a mint takes, and it protects
 * nothing, since the key is in memory anyway. Handing the JDK the key directly makes a mint
 * about five times faster.
 */
final class LeafKeyManager extends X509ExtendedKeyManager {

    private static final String ALIAS = "leaf";

    private final PrivateKey key;
    private final X509Certificate[] chain;

    LeafKeyManager(PrivateKey key, X509Certificate leaf, X509Certificate ca) {
        this.key = key;
        this.chain = new X509Certificate[] {leaf, ca};
    }

    /** The alias, if the JDK asks for the key type this leaf has ("EC"); otherwise none, so it tries the next type. */
    private String aliasFor(String keyType) {
        return key.getAlgorithm().equalsIgnoreCase(keyType) ? ALIAS : null;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return aliasFor(keyType) == null ? null : new String[] {ALIAS};
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? key : null;
    }

    // A server context: it never authenticates as a client.

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    /** This key manager as a factory, the form BoringSSL's context builder takes. */
    KeyManagerFactory asFactory() {
        X509ExtendedKeyManager self = this;
        return new SimpleKeyManagerFactory() {
            @Override
            protected void engineInit(KeyStore keyStore, char[] password) {}

            @Override
            protected void engineInit(ManagerFactoryParameters params) {}

            @Override
            protected KeyManager[] engineGetKeyManagers() {
                return new KeyManager[] {self};
            }
        };
    }
}
