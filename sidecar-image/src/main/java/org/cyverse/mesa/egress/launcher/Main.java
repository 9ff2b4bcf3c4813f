package org.cyverse.mesa.egress.launcher;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Entry point of {@code bin/mesa-egress}: {@code run}, {@code check}, {@code validate},
 * {@code ca}, {@code trust}, {@code version} (SPEC.md "Command line"; {@code trust} is an extension).
 * MESA_EGRESS_* environment variables stand in for flags ({@link EnvironmentFlags}). Exit codes: 0 success (allow, for {@code check}),
 * 2 bad config or input, 3 deny (for {@code check}), 1 an unexpected failure.
 */
public final class Main {

    static final String USAGE = String.join("\n",
            "usage: mesa-egress COMMAND [options]",
            "",
            "  run [--config FILE] [--profile P0..P4|FILE] [--listen HOST:PORT] [--admin HOST:PORT] [--share-dir DIR]",
            "        serve until SIGTERM/SIGINT, then drain and exit (SIGHUP reloads the config file);",
            "        --share-dir writes ca.pem, bundle.pem and truststore.p12 for the agent into DIR",
            "  check [--config FILE] [--profile P] [--method M] URL",
            "        print the decision for URL as JSON, without sending anything (exit 0 allow, 3 deny)",
            "  validate FILE",
            "        check a config file; one line per problem: FILE:LINE: key: message",
            "  sentinels [--config FILE] [NAME]",
            "        print each credential's placeholder for the agent (NAME SENTINEL), or NAME's alone",
            "  ca init --out DIR",
            "        write a new interception CA: DIR/ca.pem and DIR/ca.key (mode 0600); never overwrites",
            "  trust --ca-cert FILE --share-dir DIR [--upstream-ca FILE]",
            "        write ca.pem, bundle.pem and truststore.p12 for an agent that uses a proxy in another pod",
            "  approvals list|approve ID|deny ID --token-file FILE [--admin HOST:PORT] [--ttl 1h|job] [--ports P,...] [--methods M,...]",
            "        the approval inbox of a running proxy, with the admin token (exit 0 done, 1 refused or unreachable)",
            "  version",
            "        print the version",
            "");

    private Main() {}

    public static void main(String[] args) {
        LogSetup.install();
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /** Runs one command with the process's environment; returns its exit code. */
    static int run(List<String> args, PrintStream out, PrintStream err) {
        return run(args, out, err, System.getenv());
    }

    /** Runs one command; {@code env} supplies the MESA_EGRESS_* variables ({@link EnvironmentFlags}). */
    static int run(List<String> args, PrintStream out, PrintStream err, Map<String, String> env) {
        if (args.isEmpty() || args.get(0).equals("help") || args.get(0).equals("--help") || args.get(0).equals("-h")) {
            (args.isEmpty() ? err : out).print(USAGE);
            return args.isEmpty() ? Exit.BAD_INPUT : Exit.OK;
        }
        List<String> rest = args.subList(1, args.size());
        try {
            switch (args.get(0)) {
                case "run":
                    return RunCommand.run(rest, err, env);
                case "check":
                    return CheckCommand.run(rest, out, err, env);
                case "validate":
                    return ValidateCommand.run(rest, out, err);
                case "ca":
                    return CaCommand.run(rest, out, err);
                case "sentinels":
                    return SentinelsCommand.run(rest, out, err, env);
                case "trust":
                    return TrustCommand.run(rest, out, err, env);
                case "approvals":
                    return ApprovalsCommand.run(rest, out, err, env);
                case "version":
                case "--version":
                    out.println("mesa-egress " + Exit.version());
                    return Exit.OK;
                default:
                    err.println("mesa-egress: unknown command \"" + args.get(0) + "\"\n");
                    err.print(USAGE);
                    return Exit.BAD_INPUT;
            }
        } catch (Args.UsageException e) {
            err.println("mesa-egress " + args.get(0) + ": " + e.getMessage());
            return Exit.BAD_INPUT;
        }
    }

}
