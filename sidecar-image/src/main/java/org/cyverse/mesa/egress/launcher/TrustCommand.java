package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
                return Exit.BAD_INPUT;
            }
        } catch (IOException e) {
            err.println("mesa-egress trust: " + e.getMessage());
            return Exit.BAD_INPUT;
        }
        Path upstream = args.flag("--upstream-ca") == null ? null : Path.of(args.flag("--upstream-ca"));
        Path share = Path.of(args.flag("--share-dir"));
        String key = privateKeyIn(share);
        if (key != null) {
            // As run refuses a CA key inside its share dir: the agent's container reads this directory.
            err.println("mesa-egress trust: the share dir " + share + " holds a private key (" + key + "), and the agent's container"
                    + " reads it: write the trust files to a directory of their own, and keep the key where only the proxy mounts it");
            return Exit.BAD_INPUT;
        }
        try {
            out.println(SharedTrustFiles.publish(share, ca, upstream, env));
            return Exit.OK;
        } catch (IOException e) {
            err.println("mesa-egress trust: " + e.getMessage());
            return Exit.FAILURE;
        }
    }

    /** The name of a file in {@code dir} that holds a PEM private key, or {@code null}. */
    private static String privateKeyIn(Path dir) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (Files.isRegularFile(f) && Files.size(f) < (1 << 20)
                        && Files.readString(f, StandardCharsets.ISO_8859_1).contains("PRIVATE KEY-----")) {
                    return f.getFileName().toString();
                }
            }
        } catch (IOException e) {
            return null; // unreadable files are no key the agent could read either
        }
        return null;
    }
}
