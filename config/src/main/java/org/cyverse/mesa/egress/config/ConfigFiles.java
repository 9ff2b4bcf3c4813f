package org.cyverse.mesa.egress.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What {@code run} would find wrong with the files a valid config names, checked without starting
 * anything, so that {@code validate} says it too and {@code run} exits 2 naming the key (SPEC.md:
 * a bad config) instead of failing later: {@code tls.upstream_ca} readable and holding CA
 * certificates only, and {@code audit.sink}'s directory there and writable. The interception CA
 * pair is the proxy's to check ({@code InterceptionCa.check}), which holds it to its profile.
 */
public final class ConfigFiles {

    private ConfigFiles() {}

    /** The problems, each at the line of its key in {@code config.source()} (0 when built in). */
    public static List<ConfigProblem> check(MesaConfig config) {
        List<ConfigProblem> problems = new ArrayList<>();
        MesaConfig.Tls tls = config.tls();
        if (tls.upstreamCa() != null) {
            String problem = upstreamCa(tls.upstreamCa());
            if (problem != null) {
                problems.add(problem(config, "tls.upstream_ca", problem));
            }
        }
        if (config.audit().sink() instanceof MesaConfig.Audit.AppendTo file) {
            Path dir = file.file().toAbsolutePath().getParent();
            if (!Files.isDirectory(dir)) {
                problems.add(problem(config, "audit.sink", "its directory " + dir + " does not exist; create it, or write the audit to stdout"));
            } else if (Files.exists(file.file()) ? !Files.isWritable(file.file()) : !Files.isWritable(dir)) {
                problems.add(problem(config, "audit.sink", file.file() + " cannot be written by this user"));
            }
        }
        return problems;
    }

    private static String upstreamCa(Path file) {
        String text = text(file);
        if (text == null) {
            return unreadable(file);
        }
        if (text.contains("PRIVATE KEY-----")) {
            return file + " holds a private key: tls.upstream_ca takes the certificates of the CAs that sign upstreams, never a key";
        }
        Collection<X509Certificate> certificates = certificates(text);
        if (certificates == null || certificates.isEmpty()) {
            return file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
        }
        for (X509Certificate c : certificates) {
            if (c.getBasicConstraints() < 0) {
                return file + " holds " + c.getSubjectX500Principal().getName() + ", which is not a CA certificate (basicConstraints CA:TRUE)";
            }
        }
        return null;
    }

    /** The file's text, or {@code null} when it cannot be read. */
    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return null;
        }
    }

    private static String unreadable(Path file) {
        return file + " cannot be read (" + (!Files.exists(file) ? "no such file" : !Files.isReadable(file) ? "permission denied" : "not a PEM text file")
                + ")";
    }

    @SuppressWarnings("unchecked")
    private static Collection<X509Certificate> certificates(String text) {
        try {
            return (Collection<X509Certificate>) CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)));
        } catch (CertificateException e) {
            return null;
        }
    }

    /** A problem with {@code key} at the line it is written on in the config's file (or the command line's). */
    public static ConfigProblem problem(MesaConfig config, String key, String message) {
        Path source = config.source();
        return new ConfigProblem(source == null ? ConfigLoader.COMMAND_LINE : source.toString(), lineOf(source, key), key, message);
    }

    /** The line {@code dotted} (e.g. {@code tls.upstream_ca}) is written on in {@code file}, or 0. */
    public static int lineOf(Path file, String dotted) {
        if (file == null) {
            return 0;
        }
        try {
            YamlNode node = YamlReader.read(Files.readString(file, StandardCharsets.UTF_8));
            int line = 0;
            for (String part : dotted.split("\\.")) {
                if (!(node instanceof YamlNode.MapNode map)) {
                    return line;
                }
                YamlNode.Entry found = map.entries().stream().filter(e -> e.key().equals(part)).findFirst().orElse(null);
                if (found == null) {
                    return line;
                }
                line = found.keyLine();
                node = found.value();
            }
            return line;
        } catch (IOException | YamlReader.SyntaxException e) {
            return 0;
        }
    }
}
