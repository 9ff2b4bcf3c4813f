package org.cyverse.mesa.egress.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * The TLS implementation for interception, on both sides: BoringSSL through netty-tcnative when
 * its native library loads, else the JDK's.
 *
 * <p>Why BoringSSL: an intercepted request is decrypted and encrypted twice, and each new client
 * connection costs two handshakes. In the JDK these run as Java code (elliptic-curve arithmetic
 * included) that the JIT compiles only after tens of seconds of load on a one-CPU pod, and the
 * handshakes run on the event loop meanwhile; native code is fast from the first connection.
 * {@code -Dmesa.egress.tls.provider=jdk} forces the JDK's implementation.
 */
public final class TlsProvider {

    private TlsProvider() {}

    /** The provider {@code -Dmesa.egress.tls.provider} asks for ({@code auto}: BoringSSL where it loads). */
    public static SslProvider configured() {
        return choose(System.getProperty("mesa.egress.tls.provider", "auto"));
    }

    static SslProvider choose(String wanted) {
        String w = wanted.trim().toLowerCase(Locale.ROOT);
        return !w.equals("jdk") && OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** "BoringSSL" or "JDK", for the start-up log line. */
    public static String describe(SslProvider provider) {
        return provider == SslProvider.JDK ? "JDK TLS" : OpenSsl.versionString();
    }
}
