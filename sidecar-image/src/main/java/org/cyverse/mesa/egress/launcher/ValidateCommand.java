package org.cyverse.mesa.egress.launcher;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigProblem;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;
import org.cyverse.mesa.egress.injector.CredentialSpec;

/** {@code validate FILE}: 0 valid, 2 invalid with one {@code FILE:LINE: key: message} line per problem. */
final class ValidateCommand {

    private ValidateCommand() {}

    static int run(List<String> rest, PrintStream out, PrintStream err) throws Args.UsageException {
        Args args = Args.parse(rest, Set.of());
        if (args.positional.size() != 1) {
            throw new Args.UsageException("takes exactly one FILE");
        }
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled(), System.getenv()).load(Path.of(args.positional.get(0)), Overrides.NONE);
        if (!result.ok()) {
            for (ConfigProblem problem : result.problems()) {
                out.println(problem);
            }
            return Exit.BAD_INPUT;
        }
        MesaConfig c = result.config();
        List<ConfigProblem> files = Preflight.problems(c); // what run would refuse too
        if (!files.isEmpty()) {
            files.forEach(out::println);
            return Exit.BAD_INPUT;
        }
        out.println(args.positional.get(0) + ": valid: profile " + c.profile().name() + ", egress " + c.egress().name()
                + ", " + c.allow().size() + " allow, " + c.deny().size() + " deny, " + c.credentials().size() + " credentials" + credentialKinds(c));
        return Exit.OK;
    }

    /** E.g. {@code " (1 minted, 2 with limits)"}, or nothing. */
    private static String credentialKinds(MesaConfig c) {
        long minted = c.credentials().stream().filter(CredentialSpec::minted).count();
        long limited = c.credentials().stream().filter(s -> s.limits().any()).count();
        if (minted == 0 && limited == 0) {
            return "";
        }
        String both = minted > 0 && limited > 0 ? ", " : "";
        return " (" + (minted > 0 ? minted + " minted" : "") + both + (limited > 0 ? limited + " with limits" : "") + ")";
    }
}
