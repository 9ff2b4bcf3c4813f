package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.cyverse.mesa.egress.config.ConfigFiles;
import org.cyverse.mesa.egress.config.ConfigProblem;
import org.cyverse.mesa.egress.config.InterceptMode;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.proxy.admin.AdminToken;
import org.cyverse.mesa.egress.tls.InterceptionCa;

/**
 * Everything {@code run} would refuse about a loaded config that needs neither the network nor a
 * listening socket: the files it names ({@link ConfigFiles#check}), the admin token file, and the
 * interception CA pair. {@code validate} prints these and exits 2; {@code run} prints the same
 * lines and exits 2 before it creates anything (SPEC.md: a bad config names the key).
 */
final class Preflight {

    private Preflight() {}

    /** The problems, {@code FILE:LINE: key: message} each; empty when {@code run} would start. */
    static List<ConfigProblem> problems(MesaConfig config) {
        List<ConfigProblem> problems = new ArrayList<>(ConfigFiles.check(config));
        try {
            AdminToken.verify(config.control().tokenFile());
        } catch (IOException e) {
            problems.add(ConfigFiles.problem(config, "admin.token_file", e.getMessage().replaceFirst("^admin\\.token_file ", "")));
        }
        MesaConfig.Tls tls = config.tls();
        if (tls.intercept() != InterceptMode.NONE && tls.caCert() != null && tls.caKey() != null) {
            InterceptionCa.check(tls.caCert(), tls.caKey(), tls.allowReadableKey()).ifPresent(p -> problems.add(ConfigFiles.problem(config,
                    p.part() == InterceptionCa.Part.KEY ? "tls.ca_key" : "tls.ca_cert", p.message())));
        }
        return problems;
    }
}
