package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.testkit.SystemPropertyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every {@link InterceptionFailuresTest} case (untrusted or misnamed upstream certificates,
 * clients that distrust the CA) again on the JDK's TLS ({@code -Dmesa.egress.tls.provider=jdk}).
 */
class JdkTlsInterceptionFailuresTest extends InterceptionFailuresTest {

    @RegisterExtension
    static final SystemPropertyExtension JDK_TLS = new SystemPropertyExtension("mesa.egress.tls.provider", "jdk");
}
