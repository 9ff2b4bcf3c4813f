package org.cyverse.mesa.egress.launcher;

import java.io.PrintStream;
import java.nio.file.Path;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigProblem;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;

/** Loads the config that {@code --config}, {@code --profile}, {@code --listen} and {@code --admin} name. */
final class ConfigArgs {

    final ConfigLoader loader = new ConfigLoader(ProfileCatalog.bundled());
    final Path file;
    final Overrides overrides;

    ConfigArgs(Args args) {
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
            err.println(problem);
        }
        return null;
    }
}
