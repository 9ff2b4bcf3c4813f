package org.cyverse.mesa.egress.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.cyverse.mesa.egress.allowlist.Cidr;
import org.cyverse.mesa.egress.config.MapReader.Text;

/** Reads the {@code network}, {@code tls}, {@code audit} and {@code limits} sections, with SPEC.md's defaults. */
final class SettingsReader {

    static final List<String> NETWORK_KEYS = List.of("allow_private", "dns_timeout", "connect_timeout");
    static final List<String> TLS_KEYS = List.of("ca_cert", "ca_key", "upstream_ca", "intercept", "explain_refusals", "require_sni",
            "allow_readable_key", "http2");
    static final List<String> AUDIT_KEYS = List.of("sink");
    static final List<String> LIMITS_KEYS = List.of("max_connections", "max_header_bytes", "header_timeout", "idle_timeout", "scan_hold_bytes",
            "scan_hold_total_bytes", "upstream_first_byte_timeout", "websocket_max_message_bytes", "websocket_idle_timeout");

    /** Where the interception CA is created when the config names none, relative to the base directory. */
    static final String DEFAULT_CA_DIR = ".mesa-egress";

    private SettingsReader() {}

    static MesaConfig.Network network(MapReader root) {
        MapReader network = root.section("network", NETWORK_KEYS);
        List<Cidr> allowPrivate = new ArrayList<>();
        List<Text> cidrs = network.strings("allow_private");
        if (cidrs != null) {
            for (Text text : cidrs) {
                try {
                    allowPrivate.add(Cidr.parse(text.value()));
                } catch (IllegalArgumentException e) {
                    root.problems().add(text.line(), network.key("allow_private"), e.getMessage());
                }
            }
        }
        return new MesaConfig.Network(List.copyOf(allowPrivate),
                network.duration("dns_timeout", Duration.ofSeconds(5)),
                network.duration("connect_timeout", Duration.ofSeconds(10)));
    }

    /**
     * @param base the config file's directory, or the working directory without a file: the
     *     default CA then lands in {@code ./.mesa-egress/} as SPEC.md says
     */
    static MesaConfig.Tls tls(MapReader root, Path base) {
        MapReader tls = root.section("tls", TLS_KEYS);
        Path caCert = tls.path("ca_cert", base);
        Path caKey = tls.path("ca_key", base);
        Path defaultDir = base.resolve(DEFAULT_CA_DIR);
        if ((caCert == null) != (caKey == null)) {
            // A certificate without its key (or the reverse) cannot sign; creating a fresh pair
            // beside it would silently replace the CA the agent's trust store was given.
            String given = caCert != null ? "ca_cert" : "ca_key";
            String missing = caCert != null ? "ca_key" : "ca_cert";
            tls.problem(given, "is given without tls." + missing + "; give both, or neither to have a CA created in " + defaultDir);
        } else if (caCert == null) {
            caCert = defaultDir.resolve("ca.pem");
            caKey = defaultDir.resolve("ca.key");
        }
        String upstream = tls.optionalString("upstream_ca");
        Path upstreamCa = upstream == null || upstream.equals("system") ? null : tls.path("upstream_ca", base);
        return new MesaConfig.Tls(caCert, caKey, upstreamCa, intercept(tls), tls.bool("explain_refusals", true),
                tls.bool("require_sni", false), tls.bool("allow_readable_key", false), tls.bool("http2", false));
    }

    private static InterceptMode intercept(MapReader tls) {
        String text = tls.string("intercept");
        if (text == null) {
            return InterceptMode.AUTO;
        }
        switch (text) {
            case "auto":
                return InterceptMode.AUTO;
            case "all":
                return InterceptMode.ALL;
            case "none":
                return InterceptMode.NONE;
            default:
                tls.problem("intercept", "must be auto, all or none, got \"" + text + "\"");
                return InterceptMode.AUTO;
        }
    }

    static MesaConfig.Audit audit(MapReader root, Path base) {
        MapReader audit = root.section("audit", AUDIT_KEYS);
        String sink = audit.string("sink");
        if (sink == null || sink.equals("stdout")) {
            return MesaConfig.Audit.stdout();
        }
        if (sink.isBlank()) {
            audit.problem("sink", "must be stdout or a file path");
            return MesaConfig.Audit.stdout();
        }
        if (sink.toLowerCase(Locale.ROOT).equals("stdout")) {
            audit.problem("sink", "write stdout in lowercase; \"" + sink + "\" would be a file name");
            return MesaConfig.Audit.stdout();
        }
        Path file = audit.path("sink", base);
        return file == null ? MesaConfig.Audit.stdout() : new MesaConfig.Audit(new MesaConfig.Audit.AppendTo(file));
    }

    static MesaConfig.Limits limits(MapReader root) {
        MapReader limits = root.section("limits", LIMITS_KEYS);
        return new MesaConfig.Limits(
                limits.integer("max_connections", 4096, 1, Integer.MAX_VALUE),
                limits.integer("max_header_bytes", 65536, 1024, 1048576),
                limits.duration("header_timeout", Duration.ofSeconds(10)),
                limits.duration("idle_timeout", Duration.ofSeconds(60)),
                limits.integer("scan_hold_bytes", MesaConfig.Limits.DEFAULT_SCAN_HOLD_BYTES, 0, 64 << 20),
                limits.integer("scan_hold_total_bytes", MesaConfig.Limits.DEFAULT_SCAN_HOLD_TOTAL_BYTES, 65536, Integer.MAX_VALUE),
                limits.duration("upstream_first_byte_timeout", MesaConfig.Limits.DEFAULT_FIRST_BYTE_TIMEOUT),
                limits.integer("websocket_max_message_bytes", MesaConfig.Limits.DEFAULT_WEBSOCKET_MAX_MESSAGE_BYTES, 1024, 256 << 20),
                limits.duration("websocket_idle_timeout", MesaConfig.Limits.DEFAULT_WEBSOCKET_IDLE_TIMEOUT));
    }
}
