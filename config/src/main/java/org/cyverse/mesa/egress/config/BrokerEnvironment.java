package org.cyverse.mesa.egress.config;

import java.util.Map;

/**
 * The OpenBao CLI's environment variables that may fill in {@code broker.openbao} (issue 4,
 * "Launcher"): {@code BAO_ADDR}, {@code BAO_NAMESPACE}, {@code BAO_CACERT}, and Vault's
 * {@code VAULT_*} names, which OpenBao's CLI reads only when the {@code BAO_*} one is unset.
 * An empty variable counts as unset. The config file wins over all of them.
 *
 * @param address the address, or {@code null}
 * @param addressVar the variable it came from
 * @param namespace the namespace, or {@code null}
 * @param caCert the CA file, or {@code null}
 * @param caCertVar the variable it came from
 */
record BrokerEnvironment(String address, String addressVar, String namespace, String caCert, String caCertVar) {

    static final BrokerEnvironment NONE = new BrokerEnvironment(null, null, null, null, null);

    static BrokerEnvironment of(Map<String, String> env) {
        if (env == null || env.isEmpty()) {
            return NONE;
        }
        String addressVar = first(env, "BAO_ADDR", "VAULT_ADDR");
        String caVar = first(env, "BAO_CACERT", "VAULT_CACERT");
        String nsVar = first(env, "BAO_NAMESPACE", "VAULT_NAMESPACE");
        return new BrokerEnvironment(value(env, addressVar), addressVar, value(env, nsVar), value(env, caVar), caVar);
    }

    /** The first of {@code names} that is set and not blank, or {@code null}. */
    private static String first(Map<String, String> env, String... names) {
        for (String name : names) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return name;
            }
        }
        return null;
    }

    private static String value(Map<String, String> env, String name) {
        return name == null ? null : env.get(name).strip();
    }
}
