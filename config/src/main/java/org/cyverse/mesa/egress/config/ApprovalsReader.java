package org.cyverse.mesa.egress.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.cyverse.mesa.egress.allowlist.Profile;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * Reads {@code approvals} (SPEC.md's second-wave key): the approval inbox of A1 profiles. Refused
 * under a profile without A1 (P3 and P4 are policy-only), and without {@code admin.token_file}
 * (no one could approve).
 */
final class ApprovalsReader {

    static final List<String> KEYS = List.of("enabled", "pending_ttl", "hold", "state_file", "webhook", "max_pending", "max_held");
    static final List<String> WEBHOOK_KEYS = List.of("url", "secret");

    private ApprovalsReader() {}

    static MesaConfig.Approvals read(MapReader root, Path base, Profile profile, MesaConfig.Control control, boolean broker) {
        MapReader a = root.map("approvals", KEYS);
        if (a == null) {
            return MesaConfig.Approvals.OFF;
        }
        int before = a.problems().size();
        boolean enabled = a.bool("enabled", false);
        Duration pendingTtl = a.duration("pending_ttl", MesaConfig.Approvals.DEFAULT_PENDING_TTL);
        Duration hold = hold(a);
        Path stateFile = a.path("state_file", base);
        int maxPending = a.integer("max_pending", MesaConfig.Approvals.DEFAULT_MAX_PENDING, 1, 10_000);
        int maxHeld = a.integer("max_held", MesaConfig.Approvals.DEFAULT_MAX_HELD, 1, 10_000);
        MesaConfig.Approvals.Webhook webhook = null;
        MapReader w = a.map("webhook", WEBHOOK_KEYS);
        if (w != null) {
            URI url = HttpsUrls.read(w, "url", "the inbox's webhook", "https://inbox.example.org/hook",
                    "the events name the job's hosts and approval ids");
            String secretText = w.requiredString("secret");
            SecretRef secret = secretText == null ? null : CredentialReader.secretRef(w, "secret", secretText, broker);
            if (url != null && secret != null) {
                webhook = new MesaConfig.Approvals.Webhook(url, secret);
            }
        }
        if (enabled && profile != null && !profile.approvable()) {
            a.problem("enabled", "approvals are for A1 profiles (P1, P2); profile " + profile.name() + " is policy-only (autonomy "
                    + String.join(", ", profile.autonomy()) + "): remove approvals, or use an A1 profile");
        }
        if (enabled && control.tokenFile() == null) {
            a.problem("enabled", "approvals need admin.token_file: without the admin token no one can list, approve or deny");
        }
        if (a.problems().size() != before) {
            return MesaConfig.Approvals.OFF;
        }
        return new MesaConfig.Approvals(enabled, pendingTtl, hold, stateFile, webhook, maxPending, maxHeld);
    }

    /** {@code hold}: {@code 0s} (the default: deny at once) or a duration up to 5 minutes. */
    private static Duration hold(MapReader a) {
        String text = a.present("hold") ? a.string("hold") : null;
        if (text == null || text.strip().matches("0+(ms|s|m|h)?")) {
            return Duration.ZERO;
        }
        Duration hold = a.duration("hold", Duration.ZERO);
        if (hold.compareTo(MesaConfig.Approvals.MAX_HOLD) > 0) {
            a.problem("hold", "must be at most 5m: a held client is a connection kept open, got \"" + text + "\"");
            return Duration.ZERO;
        }
        return hold;
    }
}
