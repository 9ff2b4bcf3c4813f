package org.cyverse.mesa.egress.proxy.observe;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.oauth2.OAuth2Spec;

/**
 * The metrics of SPEC.md, in a registry of their own (one per proxy, so that several proxies in
 * one JVM, as in tests, do not share counters). Label values are reason codes, modes and
 * credential names: never a host, a path or a secret.
 */
public final class ProxyMetrics {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests = Counter.builder()
            .name("mesa_egress_requests_total")
            .help("Requests and tunnels decided, by decision, reason code and mode")
            .labelNames("decision", "reason", "mode")
            .register(registry);
    private final Histogram duration = Histogram.builder()
            .name("mesa_egress_request_duration_seconds")
            .help("Time from the request head to the end of the exchange (the tunnel's life for opaque CONNECT)")
            .classicOnly()
            .classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
            .register(registry);
    private final Gauge activeConnections = Gauge.builder()
            .name("mesa_egress_active_connections")
            .help("Client connections open now")
            .register(registry);
    private final Counter bytes = Counter.builder()
            .name("mesa_egress_bytes_total")
            .help("Bytes relayed: up = client to upstream, down = upstream to client")
            .labelNames("direction")
            .register(registry);
    private final Counter injections = Counter.builder()
            .name("mesa_egress_injections_total")
            .help("Credential injections by credential and outcome")
            .labelNames("credential", "outcome")
            .register(registry);
    private final Counter leaksBlocked = Counter.builder()
            .name("mesa_egress_leaks_blocked_total")
            .help("Requests stopped for carrying a real secret (secret_leak) or a sentinel outside its scope"
                    + " (credential_endpoint_mismatch), by credential and where it was (header, query, path, body, host, method)")
            .labelNames("credential", "place")
            .register(registry);
    private final Counter http2Errors = Counter.builder()
            .name("mesa_egress_http2_connection_errors_total")
            .help("HTTP/2 connections with an agent ended by a GOAWAY for an error (a flood, a protocol violation), by its error code")
            .labelNames("error")
            .register(registry);
    private final Counter dlpFindings = Counter.builder()
            .name("mesa_egress_dlp_findings_total")
            .help("dlp rules that matched a request, by rule, place and action (audit: recorded; block: refused)")
            .labelNames("rule", "place", "action")
            .register(registry);
    private final Counter credentialRefresh = Counter.builder()
            .name("mesa_egress_credential_refresh_total")
            .help("Credential fetches and refreshes by credential and outcome")
            .labelNames("credential", "outcome")
            .register(registry);
    private final Counter mints = Counter.builder()
            .name("mesa_egress_credential_mints_total")
            .help("Calls to the issuer of a minted credential, by credential and outcome (success, failure: minting;"
                    + " retired, retire_failure: taking a key back)")
            .labelNames("credential", "outcome")
            .register(registry);
    private final Counter oauth2Tokens = Counter.builder()
            .name("mesa_egress_oauth2_tokens_total")
            .help("Calls to the token and revocation endpoints of oauth2 credentials, by credential, grant and outcome (success,"
                    + " failure, revoked: the issuer answered invalid_grant; retired, retire_failure: revocation)")
            .labelNames("credential", "grant", "outcome")
            .register(registry);
    private final Counter upstreamRefusals = Counter.builder()
            .name("mesa_egress_credential_upstream_refusals_total")
            .help("Answers 400, 401, 402, 403 and 429 from upstreams to requests a credential was injected into"
                    + " (a budget exhausted, a key blocked or expired), by credential and status")
            .labelNames("credential", "status")
            .register(registry);
    private final Counter budgetRefusals = Counter.builder()
            .name("mesa_egress_credential_budget_refusals_total")
            .help("Requests refused 429 credential_budget_exceeded, by credential and the limit they would have passed")
            .labelNames("credential", "limit")
            .register(registry);
    private final Counter approvals = Counter.builder()
            .name("mesa_egress_approvals_total")
            .help("Approval inbox events by outcome: requested, approved, denied, expired (undecided), grant_expired")
            .labelNames("outcome")
            .register(registry);
    private final Gauge approvalsPending = Gauge.builder()
            .name("mesa_egress_approvals_pending")
            .help("Approval requests waiting for a decision")
            .register(registry);
    private final Counter webhook = Counter.builder()
            .name("mesa_egress_approval_webhook_total")
            .help("approvals.webhook deliveries by outcome: delivered, retried, failed (gave up), dropped (queue full)")
            .labelNames("outcome")
            .register(registry);
    private final Gauge killSwitch = Gauge.builder()
            .name("mesa_egress_kill_switch")
            .help("1 once the kill switch was pulled (nothing leaves until a restart), else 0")
            .register(registry);
    private final Counter reloads = Counter.builder()
            .name("mesa_egress_config_reloads_total")
            .help("Config reloads by outcome (success, failure)")
            .labelNames("outcome")
            .register(registry);
    private final Counter leafCertificates = Counter.builder()
            .name("mesa_egress_leaf_certificates_issued_total")
            .help("Leaf certificates minted for TLS interception")
            .register(registry);

    {
        killSwitch.set(0);
    }

    /** Counts one decided request or tunnel. */
    public void request(boolean allowed, Reason reason, String mode, double seconds) {
        requests.labelValues(allowed ? "allow" : "deny", reason.code(), mode).inc();
        duration.observe(seconds);
    }

    public void connectionOpened() {
        activeConnections.inc();
    }

    public void connectionClosed() {
        activeConnections.dec();
    }

    public void bytesUp(long n) {
        if (n > 0) {
            bytes.labelValues("up").inc(n);
        }
    }

    public void bytesDown(long n) {
        if (n > 0) {
            bytes.labelValues("down").inc(n);
        }
    }

    public void injection(String credential, String outcome) {
        injections.labelValues(credential, outcome).inc();
    }

    /** Counts what step 5 did to a request: its injection outcome, and a leak it stopped. */
    public void credentials(Verdict verdict) {
        if (verdict.dlp() != null) {
            dlpFinding(verdict.dlp(), verdict.place(), verdict.allowed() ? "audit" : "block");
            if (!verdict.allowed()) {
                leakBlocked("dlp:" + verdict.dlp(), verdict.place());
            }
        }
        if (verdict.reason() == Reason.CREDENTIAL_BUDGET_EXCEEDED) {
            budgetRefusals.labelValues(verdict.credential(), verdict.rule().substring(Refusals.LIMIT_RULE_PREFIX.length())).inc();
        }
        Injection.Outcome outcome = verdict.injection();
        if (outcome == null || verdict.reason() == Reason.CREDENTIAL_BUDGET_EXCEEDED) {
            return; // a request over a budget was never sent: nothing was injected
        }
        injection(verdict.credential() == null ? "" : verdict.credential(), outcome.label());
        if (verdict.place() != null && (outcome == Injection.Outcome.SECRET_LEAK || outcome == Injection.Outcome.MISMATCH)) {
            leakBlocked(verdict.credential(), verdict.place());
        }
    }

    /** Counts a {@code dlp} rule that matched in {@code place}; {@code action} is {@code audit} or {@code block}. */
    public void dlpFinding(String rule, String place, String action) {
        dlpFindings.labelValues(rule, place, action).inc();
    }

    /** Counts an HTTP/2 connection ended by a GOAWAY with {@code error} (RFC 9113 section 7, e.g. ENHANCE_YOUR_CALM). */
    public void http2ConnectionError(String error) {
        http2Errors.labelValues(error).inc();
    }

    /** Counts a request stopped for a secret or an out-of-scope sentinel found in {@code place}. */
    public void leakBlocked(String credential, String place) {
        leaksBlocked.labelValues(credential, place).inc();
    }

    public void credentialRefresh(String credential, String outcome) {
        credentialRefresh.labelValues(credential, outcome).inc();
    }

    /** What the credential store of {@code credentials} tells: fetches and mints (an oauth2 credential's by its grant too). */
    public CredentialStore.Listener credentialListener(List<CredentialSpec> credentials) {
        Map<String, String> grants = new HashMap<>();
        for (CredentialSpec c : credentials) {
            OAuth2Spec oauth2 = c.kind(OAuth2Spec.class);
            if (oauth2 != null) {
                grants.put(c.name(), oauth2.grant().key());
            }
        }
        return new CredentialStore.Listener() {
            @Override
            public void refreshed(String credential, String outcome) {
                credentialRefresh(credential, outcome);
            }

            @Override
            public void minted(String credential, String outcome) {
                mints.labelValues(credential, outcome).inc();
                String grant = grants.get(credential);
                if (grant != null) {
                    oauth2Tokens.labelValues(credential, grant, outcome).inc();
                }
            }
        };
    }

    /** Counts an upstream's refusal of a request that carried {@code credential} (see {@link #isUpstreamRefusal(int)}). */
    public void upstreamRefusal(String credential, int status) {
        if (isUpstreamRefusal(status)) {
            upstreamRefusals.labelValues(credential, Integer.toString(status)).inc();
        }
    }

    /**
     * The statuses with which gateways refuse a credential: 400 (LiteLLM's budget answer before
     * its 1.7x releases), 401 (blocked, expired, unknown key), 402, 403, 429 (budget, rate limit).
     */
    static boolean isUpstreamRefusal(int status) {
        return status == 400 || status == 401 || status == 402 || status == 403 || status == 429;
    }

    /** Counts an approval event and sets the pending gauge. */
    public void approval(String outcome, int pending) {
        approvals.labelValues(outcome).inc();
        approvalsPending.set(pending);
    }

    /** Counts an approvals.webhook delivery outcome. */
    public void webhookDelivery(String outcome) {
        webhook.labelValues(outcome).inc();
    }

    /** Sets the pending approvals gauge. */
    public void approvalsPending(int pending) {
        approvalsPending.set(pending);
    }

    public void killSwitchPulled() {
        killSwitch.set(1);
    }

    public void reload(boolean success) {
        reloads.labelValues(success ? "success" : "failure").inc();
    }

    public void leafCertificateIssued() {
        leafCertificates.inc();
    }

    /** The Prometheus text exposition format, version 0.0.4. */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The content type of {@link #scrape()}. */
    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
