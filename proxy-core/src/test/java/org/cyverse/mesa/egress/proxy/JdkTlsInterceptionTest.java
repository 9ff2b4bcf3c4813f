package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.testkit.SystemPropertyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every {@link InterceptionTest} case again on the JDK's TLS ({@code -Dmesa.egress.tls.provider=jdk}),
 * the implementation used where BoringSSL does not load ({@code theProxyNamesItsTlsImplementation}
 * checks that the property took effect).
 */
class JdkTlsInterceptionTest extends InterceptionTest {

    @RegisterExtension
    static final SystemPropertyExtension JDK_TLS = new SystemPropertyExtension("mesa.egress.tls.provider", "jdk");
}
