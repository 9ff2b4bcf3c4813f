package org.cyverse.mesa.egress.launcher;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Environment variables that stand in for command-line flags, so that a pod spec can configure
 * the sidecar with {@code env:} instead of rewriting its {@code args:}. Precedence: a flag given
 * on the command line wins over its variable, the variable over the config file, the file over
 * the defaults. An empty or blank variable counts as unset.
 */
final class EnvironmentFlags {

    /** Flag to variable, in the order the README documents them. */
    static final Map<String, String> VARIABLES;

    static {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("--config", "MESA_EGRESS_CONFIG");
        v.put("--profile", "MESA_EGRESS_PROFILE");
        v.put("--listen", "MESA_EGRESS_LISTEN");
        v.put("--admin", "MESA_EGRESS_ADMIN");
        v.put("--share-dir", "MESA_EGRESS_SHARE_DIR");
        v.put("--ca-cert", "MESA_EGRESS_CA_CERT");
        VARIABLES = Collections.unmodifiableMap(v);
    }

    private EnvironmentFlags() {}

    /**
     * Fills each flag of {@code known} that the command line did not give from its variable in
     * {@code env}, recording the variable so that an error can name it.
     */
    static Args fill(Args args, Set<String> known, Map<String, String> env) {
        for (Map.Entry<String, String> e : VARIABLES.entrySet()) {
            String flag = e.getKey();
            if (!known.contains(flag) || args.flags.containsKey(flag)) {
                continue;
            }
            String value = env.get(e.getValue());
            if (value != null && !value.isBlank()) {
                args.flags.put(flag, value.trim());
                args.fromEnvironment.put(flag, e.getValue());
            }
        }
        return args;
    }
}
