package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.RequestPlaces.Needle;
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
    /** Each credential's sentinel as searched for, by credential name: fixed by the config. */
    private final Map<String, Needle> sentinelNeedles;
    private final BodyScanPlans bodyPlans;
    /**
     * The secrets' needles of the last request, with the values they were made from: a request
     * whose store values are the same objects reuses them instead of re-encoding every secret.
     */
    private volatile SecretNeedles lastSecretNeedles = new SecretNeedles(Map.of(), Map.of());

    private record SecretNeedles(Map<String, Secret> from, Map<CredentialSpec, Needle> needles) {
        boolean madeFrom(Map<String, Secret> secrets) {
            if (from.size() != secrets.size()) {
                return false;
            }
            for (Map.Entry<String, Secret> e : secrets.entrySet()) {
                if (from.get(e.getKey()) != e.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * @param credentials the configured credentials, in config order (the order refusals and
     *     {@link Injection#credential()} follow)
     * @param store where the current values come from
     */
    public Injector(List<CredentialSpec> credentials, SecretValues store) {
        this.credentials = List.copyOf(credentials);
        this.store = store;
        Map<String, Needle> sentinels = new HashMap<>();
        for (CredentialSpec c : this.credentials) {
            if (c.sentinel() != null) {
                sentinels.put(c.name(), Needle.of(c.sentinel()));
            }
        }
        this.sentinelNeedles = Map.copyOf(sentinels);
        this.bodyPlans = new BodyScanPlans(this.credentials, store);
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
        Map<String, Secret> secrets = currentSecrets();
        List<Place> places = RequestPlaces.of(request);
        Destination destination = request.destination();
        String path = RequestPlaces.path(request.pathAndQuery());

        // A real key from the agent means it got hold of one: stop it wherever it was going,
        // its own host included. Places outside, secrets inside: the first label reported has
        // been checked against every secret already.
        Map<CredentialSpec, Needle> secretNeedles = secretNeedles(secrets);
        for (Place place : places) {
            for (Map.Entry<CredentialSpec, Needle> e : secretNeedles.entrySet()) {
                CredentialSpec c = e.getKey();
                if (e.getValue().in(place)) {
                    return refusal(Injection.Outcome.SECRET_LEAK, c, place.code(), "the request carries the real secret of credential "
                            + c.name() + " in " + place.label() + "; agents hold sentinels, never real keys");
                }
            }
        }

        Map<String, Place> sentinelAt = new HashMap<>();
        for (CredentialSpec c : credentials) {
            Needle sentinel = sentinelNeedles.get(c.name());
            Place where = sentinel == null ? null : firstPlace(sentinel, places);
            if (where != null) {
                sentinelAt.put(c.name(), where);
            }
        }

        // A sentinel headed elsewhere is a prompt-injected agent (or a confused one) trying to
        // send a credential to a host it does not belong to: refuse and record, never "just
        // forward the placeholder".
        for (CredentialSpec c : credentials) {
            Place where = sentinelAt.get(c.name());
            if (where == null || !request.tls() && !c.allowPlaintext() && CredentialReach.hostMatches(c, destination)) {
                continue; // no sentinel, or the plain-http case below
            }
            String miss = CredentialReach.miss(c, destination, request.method(), path);
            if (miss != null) {
                return refusal(Injection.Outcome.MISMATCH, c, where.code(), "a sentinel of credential " + c.name() + " in " + where.label()
                        + " is headed to " + destination.authority() + ", outside the credential's scope (" + miss + ")");
            }
        }

        // Plain http is readable (and rewritable) by every hop: a secret never goes out on it
        // unless the credential says so.
        if (!request.tls()) {
            for (CredentialSpec c : credentials) {
                if (sentinelAt.containsKey(c.name()) && !c.allowPlaintext()) {
                    Place where = sentinelAt.get(c.name());
                    return refusal(Injection.Outcome.PLAINTEXT, c, where.code(), "a sentinel of credential " + c.name() + " in "
                            + where.label() + " would be replaced over plain http; use https");
                }
            }
        }

        List<CredentialSpec> applied = new ArrayList<>();
        for (CredentialSpec c : credentials) {
            boolean reachable = (request.tls() || c.allowPlaintext())
                    && CredentialReach.miss(c, destination, request.method(), path) == null;
            boolean hasWork = sentinelAt.containsKey(c.name()) || c.header() != null || c.bodySubstitution() && c.sentinel() != null;
            if (reachable && hasWork) {
                if (!secrets.containsKey(c.name())) {
                    // Never forward without it: the upstream would answer 401 and the agent
                    // would retry, or worse, the sentinel would be taken for a real key.
                    return refusal(Injection.Outcome.UNAVAILABLE, c, null, "credential " + c.name()
                            + " has no valid value now (not fetched yet, failed, expired or revoked)");
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

    private Injection inject(OutgoingRequest request, List<CredentialSpec> applied, Map<String, Secret> secrets,
            Map<String, Place> sentinelAt) {
        List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers());
        String pathAndQuery = request.pathAndQuery();
        Map<String, Secret> body = new LinkedHashMap<>();
        List<String> setHeaders = new ArrayList<>();
        List<Injection.Applied> done = new ArrayList<>();
        for (CredentialSpec c : applied) {
            Secret secret = secrets.get(c.name());
            List<String> actions = new ArrayList<>();
            if (sentinelAt.containsKey(c.name())) {
                for (int i = 0; i < headers.size(); i++) {
                    Map.Entry<String, String> h = headers.get(i);
                    headers.set(i, Map.entry(h.getKey(), HeaderRewrite.replace(h.getValue(), c.sentinel(), secret.reveal())));
                }
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
        return new Injection(Injection.Outcome.INJECTED, applied.get(0).name(), pathAndQuery, headers, body, done,
                "injected " + String.join(", ", applied.stream().map(CredentialSpec::name).toList()), null);
    }

    /** Whether any credential's scope covers this host and port (the proxy intercepts those under {@code auto}). */
    public boolean hasCredentialFor(Destination destination) {
        return credentials.stream().anyMatch(c -> c.covers(destination));
    }

    /**
     * A replacer for responses: every current secret value becomes its credential's sentinel (or
     * {@code [redacted:NAME]} when it has none), so an upstream that echoes a key does not hand
     * it to the agent.
     */
    public StreamReplacer responseScrubber() {
        return scrubbing().patterns().newReplacer();
    }

    /**
     * {@code value} with every secret replaced as {@link #responseScrubber()} does, and also where
     * it appears in another letter case (a host name is lowercased before it is decided: a key
     * sent as a host label comes back in lowercase).
     */
    @Override
    public String scrub(String value) {
        String out = scrubHeaderValue(value);
        String lower = out.toLowerCase(Locale.ROOT);
        if (lower.length() != out.length()) {
            return out; // letters whose case changes the length: the exact replacement above is what holds
        }
        for (Map.Entry<String, String> e : scrubbing().text().entrySet()) {
            String needle = e.getKey().toLowerCase(Locale.ROOT);
            int from = 0;
            int at;
            while (!needle.isEmpty() && (at = lower.indexOf(needle, from)) >= 0) {
                out = out.substring(0, at) + e.getValue() + out.substring(at + needle.length());
                lower = out.toLowerCase(Locale.ROOT);
                from = at + e.getValue().length();
            }
        }
        return out;
    }

    /** A header value with every secret replaced as {@link #responseScrubber()} does. */
    public String scrubHeaderValue(String value) {
        Scrubbing current = scrubbing();
        return current.text().isEmpty() ? value : HeaderRewrite.replaceAll(value, current.text());
    }

    /** Secret to stand-in, for every value each credential has held; rebuilt only when the store has a new value. */
    private record Scrubbing(long generation, Map<String, String> text, StreamReplacer.Patterns patterns) {}

    private volatile Scrubbing scrubbing;

    private Scrubbing scrubbing() {
        long generation = store.generation();
        Scrubbing current = scrubbing;
        if (current != null && current.generation() == generation) {
            return current;
        }
        Map<String, String> text = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            String standIn = c.sentinel() != null ? c.sentinel() : "[redacted:" + c.name() + "]";
            for (Secret secret : store.held(c.name())) {
                text.putIfAbsent(secret.reveal(), standIn);
            }
        }
        Map<byte[], byte[]> bytes = new LinkedHashMap<>();
        text.forEach((secret, standIn) -> bytes.put(secret.getBytes(StandardCharsets.UTF_8), standIn.getBytes(StandardCharsets.UTF_8)));
        current = new Scrubbing(generation, java.util.Collections.unmodifiableMap(text), StreamReplacer.compile(bytes));
        scrubbing = current;
        return current;
    }

    /** The needles of {@code secrets}, in config order; those of the last request when the values are the same. */
    private Map<CredentialSpec, Needle> secretNeedles(Map<String, Secret> secrets) {
        SecretNeedles last = lastSecretNeedles;
        if (last.madeFrom(secrets)) {
            return last.needles();
        }
        Map<CredentialSpec, Needle> needles = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            Secret secret = secrets.get(c.name());
            if (secret != null) {
                needles.put(c, Needle.of(secret.reveal()));
            }
        }
        lastSecretNeedles = new SecretNeedles(Map.copyOf(secrets), needles);
        return needles;
    }

    private Map<String, Secret> currentSecrets() {
        Map<String, Secret> secrets = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            Optional<Secret> secret = store.current(c.name());
            secret.ifPresent(s -> secrets.put(c.name(), s));
        }
        return secrets;
    }

    private static Place firstPlace(Needle needle, List<Place> places) {
        for (Place place : places) {
            if (needle.in(place)) {
                return place;
            }
        }
        return null;
    }

    private static Injection refusal(Injection.Outcome outcome, CredentialSpec c, String place, String detail) {
        return new Injection(outcome, c.name(), null, null, Map.of(), List.of(), detail, place);
    }
}
