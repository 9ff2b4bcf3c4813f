package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code trust --ca-cert FILE --share-dir DIR [--upstream-ca FILE]}: writes the agent's trust files
 * ({@link SharedTrustFiles}) for a CA certificate without running a proxy. It serves the pod shape
 * where the proxy runs in a pod of its own (clusters that forbid the lock-down's NET_ADMIN): an
 * init container of the agent's pod runs it with the CA certificate (never the key) mounted.
 * Exit 0 written, 2 bad input (the file is not a CA certificate), 1 cannot write.
 */
final class TrustCommand {

    static final Set<String> FLAGS = Set.of("--ca-cert", "--share-dir", "--upstream-ca");

    private TrustCommand() {}

    static int run(List<String> rest, PrintStream out, PrintStream err, Map<String, String> env) throws Args.UsageException {
        Args args = EnvironmentFlags.fill(Args.parse(rest, FLAGS), FLAGS, env);
        if (!args.positional.isEmpty()) {
            throw new Args.UsageException("unexpected argument " + args.positional.get(0));
        }
        if (args.flag("--ca-cert") == null || args.flag("--share-dir") == null) {
            throw new Args.UsageException("usage: trust --ca-cert FILE --share-dir DIR [--upstream-ca FILE]");
        }
        X509Certificate ca;
        try {
            List<X509Certificate> certificates = TrustAnchors.pemFile(Path.of(args.flag("--ca-cert")), args.origin("--ca-cert"))
                    .certificates();
            ca = certificates.get(0);
            if (certificates.size() != 1 || ca.getBasicConstraints() < 0) {
                err.println("mesa-egress trust: " + args.flag("--ca-cert") + " must hold exactly one CA certificate "
                        + "(basicConstraints CA:TRUE), e.g. the ca.pem that `mesa-egress ca init` wrote");
                return Main.BAD_INPUT;
            }
        } catch (IOException e) {
            err.println("mesa-egress trust: " + e.getMessage());
            return Main.BAD_INPUT;
        }
        Path upstream = args.flag("--upstream-ca") == null ? null : Path.of(args.flag("--upstream-ca"));
        try {
            out.println(SharedTrustFiles.publish(Path.of(args.flag("--share-dir")), ca, upstream, env));
            return Main.OK;
        } catch (IOException e) {
            err.println("mesa-egress trust: " + e.getMessage());
            return Main.FAILURE;
        }
    }
}
