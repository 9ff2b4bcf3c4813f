package org.cyverse.mesa.egress.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** BoringSSL on the image's platforms (its native library is packaged), the JDK's TLS when asked for. */
class TlsProviderTest {

    @Test
    void linuxGetsBoringSslFromThePackagedNativeLibrary() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String arch = System.getProperty("os.arch");
        if (linux && (arch.equals("amd64") || arch.equals("aarch64"))) {
            assertTrue(OpenSsl.isAvailable(), () -> "BoringSSL did not load: " + OpenSsl.unavailabilityCause());
            assertEquals(SslProvider.OPENSSL, TlsProvider.configured());
            assertTrue(TlsProvider.describe(SslProvider.OPENSSL).startsWith("BoringSSL"), TlsProvider.describe(SslProvider.OPENSSL));
        }
        assertEquals(SslProvider.JDK, TlsProvider.choose("jdk"));
        assertEquals(SslProvider.JDK, TlsProvider.choose(" JDK "));
        assertEquals("JDK TLS", TlsProvider.describe(SslProvider.JDK));
    }
}
