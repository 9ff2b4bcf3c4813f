package org.cyverse.mesa.egress.launcher;

import java.io.PrintStream;
import java.nio.file.Path;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigProblem;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;

/**
 * Loads the config that {@code --config}, {@code --profile}, {@code --listen} and {@code --admin}
 * name, or the {@link EnvironmentFlags environment variables} that stand in for them.
 */
final class ConfigArgs {

    /** OpenBao's own variables (BAO_ADDR, ...) fill in broker.openbao where the file leaves it out. */
    final ConfigLoader loader = new ConfigLoader(ProfileCatalog.bundled(), System.getenv());
    final Path file;
    final Overrides overrides;
    private final Args args;

    ConfigArgs(Args args) {
        this.args = args;
        this.file = args.flag("--config") == null ? null : Path.of(args.flag("--config"));
        this.overrides = new Overrides(args.flag("--profile"), args.flag("--listen"), args.flag("--admin"));
    }

    /** The config, or {@code null} after printing every problem to {@code err}. */
    MesaConfig load(PrintStream err) {
        ConfigResult result = loader.load(file, overrides);
        if (result.ok()) {
            return result.config();
        }
        err.println("mesa-egress: the config is invalid:");
        for (ConfigProblem problem : result.problems()) {
            err.println(renamed(problem));
        }
        return null;
    }

    /** A problem with a flag that an environment variable supplied names the variable, which is what the operator wrote. */
    private ConfigProblem renamed(ConfigProblem problem) {
        String variable = args.fromEnvironment.get(problem.key());
        if (variable == null || !problem.file().equals("command line")) {
            return problem;
        }
        return new ConfigProblem("environment", 0, variable, problem.message());
    }
}
