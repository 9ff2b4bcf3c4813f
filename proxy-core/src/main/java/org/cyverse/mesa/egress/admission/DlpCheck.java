package org.cyverse.mesa.egress.admission;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.PercentText;
import org.cyverse.mesa.egress.injector.scan.DlpPlan;
import org.cyverse.mesa.egress.injector.scan.DlpRule;
import org.cyverse.mesa.egress.injector.scan.DlpRules;
import org.cyverse.mesa.egress.injector.scan.DlpScanner;

/**
 * {@code dlp} on a request's head (header values, path and query, percent-decoded too), and the
 * plan for its body: patterns of well-known secret formats the proxy does not hold, and a
 * high-entropy {@code Authorization} token to a host no credential covers. The configured
 * sentinels never count. Immutable.
 */
final class DlpCheck {

    /** A rule that matched, and where ({@code header}, {@code path}, {@code query}). */
    record Hit(String rule, String place) {}

    private final MesaConfig config;
    private final MesaConfig.Dlp dlp;
    private final DlpScanner head;
    private final DlpPlan body;

    DlpCheck(MesaConfig config) {
        this.config = config;
        this.dlp = config.dlp();
        Set<String> sentinels = new HashSet<>();
        for (CredentialSpec c : config.credentials()) {
            if (c.sentinel() != null) {
                sentinels.add(c.sentinel());
            }
        }
        this.head = new DlpScanner(dlp.rules(), sentinels);
        this.body = dlp.on() ? new DlpPlan(dlp.rules(), dlp.mode() == MesaConfig.Dlp.Mode.BLOCK, sentinels) : null;
    }

    /**
     * Looks at the head of {@code request} (as the client sent it) and puts a finding on the draft
     * (audit mode, and block mode); returns the refusal in block mode, {@code null} otherwise.
     */
    Refusal judge(VerdictDraft draft, OutgoingRequest request) {
        if (!dlp.on()) {
            return null;
        }
        Hit hit = scan(request, config.credentials().stream().anyMatch(c -> c.covers(request.destination())));
        if (hit == null) {
            return null;
        }
        draft.dlp = hit.rule();
        draft.place = hit.place();
        return dlp.mode() == MesaConfig.Dlp.Mode.BLOCK
                ? Refusals.dlp(hit.rule(), hit.place(), request.destination().host(), config.profile().name()) : null;
    }

    /** Whether {@code dlp} is on and a rule matches the head of {@code request} or its host name (what must never reach the approval inbox). */
    boolean finds(OutgoingRequest request) {
        return dlp.on() && (scan(request, false) != null || head.scan(request.destination().host()) != null);
    }

    /**
     * The rule of the first finding in a chunked request's trailer fields, or {@code null};
     * {@code sent} is the request head as the client sent it.
     */
    String trailerRule(OutgoingRequest sent, List<Map.Entry<String, String>> fields) {
        if (!dlp.on()) {
            return null;
        }
        Hit hit = scan(new OutgoingRequest(sent.tls(), sent.destination(), sent.method(), "/", fields),
                config.credentials().stream().anyMatch(c -> c.covers(sent.destination())));
        return hit == null ? null : hit.rule();
    }

    /** Whether a finding refuses the request ({@code dlp.mode: block}). */
    boolean blocks() {
        return dlp.mode() == MesaConfig.Dlp.Mode.BLOCK;
    }

    /** The plan for the body, or {@code null} when {@code dlp} is off. */
    DlpPlan body() {
        return body;
    }

    /**
     * The first finding in the head of {@code request} (as the client sent it), or {@code null}.
     *
     * @param credentialHost whether a credential covers the destination (its own Authorization is then expected)
     */
    Hit scan(OutgoingRequest request, boolean credentialHost) {
        for (Map.Entry<String, String> header : request.headers()) {
            DlpRule rule = head.scan(header.getValue());
            if (rule == null && header.getValue().indexOf('%') >= 0) {
                rule = head.scan(PercentText.decode(header.getValue()));
            }
            if (rule != null) {
                return new Hit(rule.id(), "header");
            }
            if (dlp.authorizationEntropy() && !credentialHost && header.getKey().equalsIgnoreCase("Authorization")
                    && DlpRules.highEntropyAuthorization(header.getValue())) {
                return new Hit(DlpRules.AUTHORIZATION_HIGH_ENTROPY, "header");
            }
        }
        String pathAndQuery = request.pathAndQuery();
        int q = pathAndQuery.indexOf('?');
        List<String> parts = q < 0 ? List.of(pathAndQuery) : List.of(pathAndQuery.substring(0, q), pathAndQuery.substring(q + 1));
        for (int i = 0; i < parts.size(); i++) {
            String part = parts.get(i);
            DlpRule rule = head.scan(part);
            if (rule == null && part.indexOf('%') >= 0) {
                rule = head.scan(PercentText.decode(part));
            }
            if (rule != null) {
                return new Hit(rule.id(), i == 0 ? "path" : "query");
            }
        }
        return null;
    }
}
