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
 * certificates only, {@code broker.openbao.ca_cert} a PEM certificate file, and the directories of
 * {@code audit.sink} and {@code approvals.state_file} there and writable. The interception CA
 * pair is the proxy's to check ({@code InterceptionCa.check}), which holds it to its profile.
 */
public final class ConfigFiles {

    private ConfigFiles() {}

    /** The problems, each at the line of its key in {@code config.source()} (0 when built in). */
    public static List<ConfigProblem> check(MesaConfig config) {
        List<ConfigProblem> problems = new ArrayList<>();
        if (config.tls().upstreamCa() != null) {
            note(problems, config, "tls.upstream_ca", certificates(config.tls().upstreamCa(),
                    "tls.upstream_ca takes the certificates of the CAs that sign upstreams", true));
        }
        if (config.audit().sink() instanceof MesaConfig.Audit.AppendTo file) {
            note(problems, config, "audit.sink", cannotWrite(file.file(), "write the audit to stdout"));
        }
        MesaConfig.Approvals approvals = config.approvals();
        if (approvals != null && approvals.enabled() && approvals.stateFile() != null) {
            note(problems, config, "approvals.state_file",
                    cannotWrite(approvals.stateFile(), "leave approvals.state_file out to keep approvals in memory only"));
        }
        MesaConfig.Broker broker = config.broker();
        if (broker != null && broker.caCert() != null) {
            note(problems, config, "broker.openbao.ca_cert", certificates(broker.caCert(),
                    "broker.openbao.ca_cert takes the certificate of the CA that signs OpenBao's", false));
        }
        return problems;
    }

    /** Adds {@code problem} with {@code key}, when there is one. */
    private static void note(List<ConfigProblem> problems, MesaConfig config, String key, String problem) {
        if (problem != null) {
            problems.add(problem(config, key, problem));
        }
    }

    /** Why the proxy could not create or append to {@code file}, or {@code null}; {@code instead} is the way out. */
    private static String cannotWrite(Path file, String instead) {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            return "its directory " + dir + " does not exist; create it, or " + instead;
        }
        if (Files.exists(file) ? !Files.isWritable(file) : !Files.isWritable(dir)) {
            return file + " cannot be written by this user";
        }
        return null;
    }

    /**
     * Why {@code file} is not a readable PEM file of certificates only (of CA certificates only, with
     * {@code casOnly}), or {@code null}; {@code takes} says what belongs there.
     */
    private static String certificates(Path file, String takes, boolean casOnly) {
        String text = text(file);
        if (text == null) {
            return unreadable(file);
        }
        if (text.contains("PRIVATE KEY-----")) {
            return file + " holds a private key: " + takes + ", never a key";
        }
        Collection<X509Certificate> certificates = certificates(text);
        if (certificates == null || certificates.isEmpty()) {
            return file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
        }
        for (X509Certificate c : certificates) {
            if (casOnly && c.getBasicConstraints() < 0) {
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
