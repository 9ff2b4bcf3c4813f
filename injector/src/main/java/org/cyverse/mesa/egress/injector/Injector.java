package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.RequestPlaces.Place;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * Decides, per request, which credential applies and rewrites the request for it (SPEC.md step 5):
 * <ul>
 *   <li>a real secret value anywhere in the request (header values, Basic credentials, path,
 *       query): {@link Injection.Outcome#SECRET_LEAK};
 *   <li>a sentinel of credential C (in a header value, inside Basic credentials, in the path or
 *       the query) and the destination outside C's scope ({@code hosts}, {@code ports},
 *       {@code methods}, {@code paths}): {@link Injection.Outcome#MISMATCH};
 *   <li>over plain http: a sentinel of a credential without {@code allow_plaintext}:
 *       {@link Injection.Outcome#PLAINTEXT}; a request without sentinels goes out unchanged,
 *       no credential is ever added;
 *   <li>a credential in scope with no current value: {@link Injection.Outcome#UNAVAILABLE};
 *   <li>otherwise every credential in scope is applied: its sentinels replaced by its secret
 *       (Basic credentials decoded, replaced, re-encoded), its {@code header} set to its
 *       {@code format} with the secret, overwriting the client's value.
 * </ul>
 * Pure apart from reading the store's current values; thread-safe.
 *
 * <p>Where SPEC.md leaves room: over plain http, a sentinel sent to one of its credential's hosts
 * is {@code PLAINTEXT} even on a port outside the credential's {@code ports} (the scheme is what
 * is wrong, and that is the hint that helps); when two applied credentials set the same header,
 * the first in config order keeps it. Besides the places listed above, header names, the method
 * and the destination host are searched for real secrets too.
 */
public final class Injector implements CredentialStep {

    private final List<CredentialSpec> credentials;
    private final SecretValues store;
    private final BodyScanPlans bodyPlans;
    /** The checks of step 5 that refuse: a real secret, a sentinel out of scope, a sentinel over plain http. */
    private final RefusingChecks checks;
    /** The Basic credentials this injector wrote, for response scrubbing. */
    private final EmittedForms emitted = new EmittedForms();
    private final SecretScrubbing scrubbing;

    /**
     * @param credentials the configured credentials, in config order (the order refusals and
     *     {@link Injection#credential()} follow)
     * @param store where the current values come from
     */
    public Injector(List<CredentialSpec> credentials, SecretValues store) {
        this.credentials = List.copyOf(credentials);
        this.store = store;
        this.checks = new RefusingChecks(this.credentials);
        this.bodyPlans = new BodyScanPlans(this.credentials, store);
        this.scrubbing = new SecretScrubbing(this.credentials, store, emitted);
    }

    /** Every value each credential has held, and the sentinels of the credentials this request is outside of. */
    @Override
    public ScanPlan bodyScan(OutgoingRequest request) {
        return bodyPlans.plan(request.destination(), request.method(), RequestPlaces.path(request.pathAndQuery()));
    }

    /** Decides and rewrites one request; see the class comment for the order of the checks. */
    @Override
    public Injection apply(OutgoingRequest request) {
        // One read of the store per request: every check below sees the same values.
        Map<String, SecretLease> leases = currentLeases();
        Map<String, Secret> secrets = secretsOf(leases);
        Map<String, Place> sentinelAt = new HashMap<>();
        Injection refused = checks.refusal(request, RequestPlaces.of(request), leases, sentinelAt);
        if (refused != null) {
            return refused;
        }
        Destination destination = request.destination();
        String path = RequestPlaces.path(request.pathAndQuery());
        List<CredentialSpec> applied = new ArrayList<>();
        for (CredentialSpec c : credentials) {
            boolean reachable = (request.tls() || c.allowPlaintext())
                    && CredentialReach.miss(c, destination, request.method(), path) == null;
            // An aws_sigv4 credential's sentinel is an access key id: SigV4Step re-signs; GitHubStep puts github_app tokens on.
            boolean hasWork = c.injectedByInjector()
                    && (sentinelAt.containsKey(c.name()) || c.header() != null || c.bodySubstitution() && c.sentinel() != null);
            if (reachable && hasWork) {
                if (!secrets.containsKey(c.name())) {
                    // Never forward without it: the upstream would answer 401 and the agent
                    // would retry, or worse, the sentinel would be taken for a real key.
                    return refusal(Injection.Outcome.UNAVAILABLE, c, null, unavailable(c));
                }
                applied.add(c);
            }
        }
        if (applied.isEmpty()) {
            return new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), request.headers(), Map.of(), List.of(),
                    "no credential applies", null);
        }
        return inject(request, applied, secrets, sentinelAt);
    }

    /**
     * SPEC.md step 5 for a chunked request's trailer fields, as for header fields: a real secret
     * or a sentinel outside its scope (or over plain http) refuses the request, with place
     * {@code trailer}; a sentinel in scope is replaced by its secret. No credential header is set
     * in a trailer. {@code request} is the request head as the client sent it.
     */
    @Override
    public Injection trailers(OutgoingRequest request, List<Map.Entry<String, String>> fields) {
        Map<String, SecretLease> leases = currentLeases();
        Map<String, Secret> secrets = secretsOf(leases);
        Map<String, Place> sentinelAt = new HashMap<>();
        Injection refused = checks.refusal(request, RequestPlaces.ofTrailers(fields), leases, sentinelAt);
        if (refused != null) {
            return refused;
        }
        List<CredentialSpec> found = new ArrayList<>();
        List<Injection.Applied> done = new ArrayList<>();
        for (CredentialSpec c : credentials) {
            if (!sentinelAt.containsKey(c.name()) || !c.injectedByInjector()) {
                continue;
            }
            if (!secrets.containsKey(c.name())) {
                return refusal(Injection.Outcome.UNAVAILABLE, c, null, unavailable(c));
            }
            found.add(c);
            done.add(new Injection.Applied(c.name(), List.of("sentinel replaced (found in " + sentinelAt.get(c.name()).label() + ")")));
        }
        List<Map.Entry<String, String>> out = new ArrayList<>(fields);
        replaceSentinels(out, found, secrets, sentinelAt);
        return done.isEmpty() ? new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), fields, Map.of(), List.of(),
                "no credential applies", null) : new Injection(Injection.Outcome.INJECTED, done.get(0).credential(), request.pathAndQuery(),
                out, Map.of(), done, "sentinels replaced in trailer fields", null);
    }

    private Injection inject(OutgoingRequest request, List<CredentialSpec> applied, Map<String, Secret> secrets,
            Map<String, Place> sentinelAt) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers());
        replaceSentinels(headers, applied, secrets, sentinelAt);
        String pathAndQuery = request.pathAndQuery();
        Map<String, Secret> body = new LinkedHashMap<>();
        List<String> setHeaders = new ArrayList<>();
        List<Injection.Applied> done = new ArrayList<>();
        for (CredentialSpec c : applied) {
            Secret secret = secrets.get(c.name());
            List<String> actions = new ArrayList<>();
            if (sentinelAt.containsKey(c.name())) {
                pathAndQuery = HeaderRewrite.replaceInUri(pathAndQuery, c.sentinel(), secret.reveal());
                actions.add("sentinel replaced (found in " + sentinelAt.get(c.name()).label() + ")");
            }
            if (c.header() != null && setHeaders.stream().noneMatch(c.header()::equalsIgnoreCase)) {
                HeaderRewrite.set(headers, c.header(), c.format().replace("{secret}", secret.reveal()));
                setHeaders.add(c.header());
                actions.add("header " + c.header() + " set");
            }
            if (c.bodySubstitution() && c.sentinel() != null) {
                body.put(c.sentinel(), secret);
                actions.add("sentinel replaced in the body");
            }
            done.add(new Injection.Applied(c.name(), actions));
        }
        if (WholeAnswers.ask(headers)) {
            done.set(0, new Injection.Applied(done.get(0).credential(), plus(done.get(0).actions(), WholeAnswers.ACTION)));
        }
        return new Injection(Injection.Outcome.INJECTED, applied.get(0).name(), pathAndQuery, headers, body, done,
                "injected " + String.join(", ", applied.stream().map(CredentialSpec::name).toList()), null);
    }

    private static List<String> plus(List<String> list, String more) {
        List<String> all = new ArrayList<>(list);
        all.add(more);
        return List.copyOf(all);
    }

    /**
     * Replaces, in place, the sentinel of every credential of {@code applied} found in the request
     * by its secret, in every field value (inside Basic credentials decoded and re-encoded), then
     * notes each rewritten field's final value against the client's own ({@link EmittedForms}):
     * once per field, so that a value holding two sentinels is noted as a whole, never half
     * rewritten (that half would name one real secret).
     */
    private void replaceSentinels(List<Map.Entry<String, String>> fields, List<CredentialSpec> applied, Map<String, Secret> secrets,
            Map<String, Place> sentinelAt) {
        List<Map.Entry<String, String>> sent = List.copyOf(fields);
        String[] firstCredential = new String[fields.size()];
        for (CredentialSpec c : applied) {
            if (sentinelAt.containsKey(c.name())) {
                String secret = secrets.get(c.name()).reveal();
                for (int i = 0; i < fields.size(); i++) {
                    Map.Entry<String, String> f = fields.get(i);
                    String written = HeaderRewrite.replace(f.getValue(), c.sentinel(), secret);
                    if (!written.equals(f.getValue())) {
                        fields.set(i, Map.entry(f.getKey(), written));
                        firstCredential[i] = firstCredential[i] == null ? c.name() : firstCredential[i];
                    }
                }
            }
        }
        for (int i = 0; i < fields.size(); i++) {
            if (firstCredential[i] != null) {
                emitted.rewritten(sent.get(i).getValue(), fields.get(i).getValue(), firstCredential[i]);
            }
        }
    }

    /** Whether any credential's scope covers this host and port (the proxy intercepts those under {@code auto}). */
    public boolean hasCredentialFor(Destination destination) {
        return credentials.stream().anyMatch(c -> c.covers(destination));
    }

    /**
     * A replacer for responses: every value a credential has held becomes its sentinel (or
     * {@code [redacted:NAME]} when it has none), in each form the proxy wrote it or an echo
     * commonly spells it, so an upstream that echoes a key does not hand it to the agent.
     */
    public StreamReplacer responseScrubber() {
        return scrubbing.echo().newReplacer();
    }

    /** The scrubbing of responses as it stands now, for an exchange to keep until its answer is through. */
    public EchoScrubber echoScrubber() {
        return scrubbing.echo();
    }

    /** {@code value} with every secret replaced as {@link #responseScrubber()} does, in any letter case too. */
    @Override
    public String scrub(String value) {
        return scrubbing.scrub(value);
    }

    /** A header value with every secret replaced as {@link #responseScrubber()} does, also where percent-encoded. */
    public String scrubHeaderValue(String value) {
        return scrubbing.echo().headerValue(value);
    }

    /** {@code text} with every value a credential has held, in any form or case, replaced by {@code [redacted:NAME]} (log lines). */
    public String redact(String text) {
        return scrubbing.redact(text);
    }

    /** {@code [redacted:NAME]} when {@code field} holds a value credential NAME has held, else {@code field} (audit records). */
    @Override
    public String redactField(String field) {
        return scrubbing.redactField(field);
    }

    private Map<String, SecretLease> currentLeases() {
        Map<String, SecretLease> leases = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            store.lease(c.name()).ifPresent(l -> leases.put(c.name(), l));
        }
        return leases;
    }

    private static Map<String, Secret> secretsOf(Map<String, SecretLease> leases) {
        Map<String, Secret> secrets = new LinkedHashMap<>();
        leases.forEach((name, lease) -> secrets.put(name, lease.secret()));
        return secrets;
    }

    /** Why {@code c} has no value, with what its source or issuer said last (an operator's message, never a value). */
    private String unavailable(CredentialSpec c) {
        String why = store.whyUnavailable(c.name());
        return "credential " + c.name() + " has no valid value now (" + (why == null ? "not fetched yet, failed, expired or revoked" : why) + ")";
    }

    static Injection refusal(Injection.Outcome outcome, CredentialSpec c, String place, String detail) {
        return new Injection(outcome, c.name(), null, null, Map.of(), List.of(), detail, place);
    }
}
