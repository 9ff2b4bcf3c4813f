package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.cyverse.mesa.egress.tls.InterceptionCa;

/**
 * {@code ca init --out DIR}: writes a new interception CA, {@code DIR/ca.pem} and
 * {@code DIR/ca.key} (mode 0600), for operators who manage the CA themselves (a Kubernetes
 * Secret, say) instead of letting each proxy create its own. Exit 0 when written; 2 when either
 * file exists (an existing CA is never replaced: agents may trust it) or the arguments are wrong;
 * 1 when the files cannot be written.
 */
final class CaCommand {

    private CaCommand() {}

    static int run(List<String> rest, PrintStream out, PrintStream err) throws Args.UsageException {
        Args args = Args.parse(rest, Set.of("--out"));
        if (!args.positional.equals(List.of("init"))) {
            throw new Args.UsageException("usage: ca init --out DIR");
        }
        String dir = args.flag("--out");
        if (dir == null || dir.isBlank()) {
            throw new Args.UsageException("init needs --out DIR");
        }
        Path outDir = Path.of(dir);
        InterceptionCa ca;
        try {
            ca = InterceptionCa.create(outDir);
        } catch (FileAlreadyExistsException e) {
            err.println("mesa-egress ca init: " + e.getFile() + " already exists; refusing to overwrite a CA "
                    + "(agents may trust it): remove both files first, or choose another --out");
            return Exit.BAD_INPUT;
        } catch (IOException e) {
            err.println("mesa-egress ca init: cannot write the CA to " + outDir + ": " + e.getMessage());
            return Exit.FAILURE;
        }
        X509Certificate certificate = ca.certificate();
        out.println("wrote " + outDir.resolve(InterceptionCa.CERT_FILE) + " and " + outDir.resolve(InterceptionCa.KEY_FILE) + " (mode 0600)");
        out.println("subject: " + certificate.getSubjectX500Principal().getName());
        out.println("valid until: " + certificate.getNotAfter().toInstant());
        out.println("sha256 fingerprint: " + fingerprint(certificate));
        return Exit.OK;
    }

    /** The SHA-256 fingerprint, as {@code openssl x509 -fingerprint -sha256} prints it, for comparing trust stores. */
    private static String fingerprint(X509Certificate certificate) {
        try {
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
