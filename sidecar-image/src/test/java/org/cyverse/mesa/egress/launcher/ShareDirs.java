package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Map;

/** The share dir as {@code run --share-dir} writes it, for tests outside the launcher package. */
public final class ShareDirs {

    private ShareDirs() {}

    /** Writes {@code ca.pem}, {@code bundle.pem}, {@code truststore.p12} and {@code node-proxy.cjs} into {@code dir}. */
    public static void publish(Path dir, X509Certificate interceptionCa, Path upstreamCa) throws IOException {
        SharedTrustFiles.publish(dir, interceptionCa, upstreamCa, Map.of());
    }
}
