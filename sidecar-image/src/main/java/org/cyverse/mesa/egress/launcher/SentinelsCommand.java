package org.cyverse.mesa.egress.launcher;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSpec;

/**
 * {@code sentinels [--config FILE] [NAME]}: the placeholders the agent is given, one
 * {@code NAME SENTINEL} line per credential that has one, or only NAME's sentinel (for
 * {@code $(mesa-egress sentinels --config F cyverse-de)} in a pod template or a launcher). A
 * {@code sentinel: auto} is computed from the config alone, so it is the same here as in the
 * running proxy, at every start. Sentinels are not secrets. Exit 0; 2 for a bad config or an
 * unknown NAME.
 */
final class SentinelsCommand {

    private SentinelsCommand() {}

    static int run(List<String> rest, PrintStream out, PrintStream err, Map<String, String> env) throws Args.UsageException {
        Set<String> flags = Set.of("--config", "--profile");
        Args args = EnvironmentFlags.fill(Args.parse(rest, flags), flags, env);
        if (args.positional.size() > 1) {
            throw new Args.UsageException("takes at most one credential NAME");
        }
        MesaConfig config = new ConfigArgs(args).load(err);
        if (config == null) {
            return Exit.BAD_INPUT;
        }
        if (args.positional.isEmpty()) {
            config.credentials().stream().filter(c -> c.sentinel() != null).forEach(c -> out.println(c.name() + " " + c.sentinel()));
            return Exit.OK;
        }
        String name = args.positional.get(0);
        CredentialSpec credential = config.credentials().stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
        if (credential == null || credential.sentinel() == null) {
            err.println("mesa-egress sentinels: " + (credential == null ? "no credential is named \"" + name + "\"" : "credential " + name
                    + " has no sentinel (the agent sends nothing for it; the proxy sets its header)") + "; credentials: "
                    + String.join(", ", config.credentials().stream().map(CredentialSpec::name).toList()));
            return Exit.BAD_INPUT;
        }
        out.println(credential.sentinel());
        return Exit.OK;
    }
}
