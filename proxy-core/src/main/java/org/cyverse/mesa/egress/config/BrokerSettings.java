package org.cyverse.mesa.egress.config;

import java.io.IOException;
import java.util.Map;
import org.cyverse.mesa.egress.injector.SecretSource;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSecretSource;
import org.cyverse.mesa.egress.injector.openbao.OpenBaoSettings;

/** Maps {@code broker.openbao} onto the injector's {@link OpenBaoSettings} (the injector cannot see config classes). */
public final class BrokerSettings {

    private BrokerSettings() {}

    /** The settings for {@code broker}, with the default timeouts (connect 5 s, read 10 s, KV values re-read within 5 min). */
    public static OpenBaoSettings openBao(MesaConfig.Broker broker) {
        MesaConfig.Broker.Auth auth = broker.auth();
        return new OpenBaoSettings(broker.address(), broker.namespace(), broker.caCert(),
                OpenBaoSettings.AuthMethod.of(auth.method()), auth.mount(), auth.role(), auth.jwtFile(), auth.tokenFile(),
                auth.wrappedTokenFile(), OpenBaoSettings.Timeouts.defaults());
    }

    /**
     * The OpenBao source for {@code config}, or {@code null} when it has no broker or the caller
     * already supplies an {@code openbao} source. Makes no network call.
     *
     * @throws IOException when {@code broker.openbao.ca_cert} cannot be read
     */
    public static OpenBaoSecretSource sourceFor(MesaConfig config, Map<String, SecretSource> given) throws IOException {
        if (config.broker() == null || given.containsKey("openbao")) {
            return null;
        }
        return OpenBaoSecretSource.create(openBao(config.broker()));
    }
}
