package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.injector.RequestPlaces.Needle;
import org.cyverse.mesa.egress.injector.RequestPlaces.Place;

/**
 * The checks of SPEC.md step 5 that refuse a request, over the places of its head or of its
 * trailer section: a real secret anywhere ({@code secret_leak}), a sentinel outside its
 * credential's scope ({@code credential_endpoint_mismatch}), a sentinel over plain http
 * ({@code plaintext_credential}). Pure apart from a cache of the secrets' needles; thread-safe.
 */
final class RefusingChecks {

    private final List<CredentialSpec> credentials;
    /** Each credential's sentinel as searched for, by credential name: fixed by the config. */
    private final Map<String, Needle> sentinelNeedles;

    /**
     * The secrets' needles of the last request, with the values they were made from: a request
     * whose store values are the same objects reuses them instead of re-encoding every secret.
     */
    private volatile SecretNeedles lastSecretNeedles = new SecretNeedles(Map.of(), List.of());

    /** A credential's secret needles. A list, not a map by credential: hashing a credential hashes its whole config. */
    private record CredentialNeedles(CredentialSpec credential, List<Needle> needles) {}

    private record SecretNeedles(Map<String, SecretLease> from, List<CredentialNeedles> needles) {
        boolean madeFrom(Map<String, SecretLease> secrets) {
            if (from.size() != secrets.size()) {
                return false;
            }
            for (Map.Entry<String, SecretLease> e : secrets.entrySet()) {
                if (from.get(e.getKey()) != e.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }

    RefusingChecks(List<CredentialSpec> credentials) {
        this.credentials = credentials;
        Map<String, Needle> sentinels = new HashMap<>();
        for (CredentialSpec c : credentials) {
            if (c.sentinel() != null) {
                sentinels.put(c.name(), Needle.of(c.sentinel()));
            }
        }
        this.sentinelNeedles = Map.copyOf(sentinels);
    }

    /**
     * The checks of step 5 that refuse, over {@code places}: a real secret anywhere, a sentinel
     * outside its credential's scope, a sentinel over plain http; {@code null} when none refuses,
     * with where each credential's sentinel was found put in {@code sentinelAt}.
     */
    Injection refusal(OutgoingRequest request, List<Place> places, Map<String, SecretLease> secrets, Map<String, Place> sentinelAt) {
        Destination destination = request.destination();
        String path = RequestPlaces.path(request.pathAndQuery());

        // A real key from the agent means it got hold of one: stop it wherever it was going,
        // its own host included. Places outside, secrets inside: the first label reported has
        // been checked against every secret already.
        List<CredentialNeedles> secretNeedles = secretNeedles(secrets);
        for (Place place : places) {
            for (CredentialNeedles e : secretNeedles) {
                CredentialSpec c = e.credential();
                if (e.needles().stream().anyMatch(n -> n.in(place))) {
                    return Injector.refusal(Injection.Outcome.SECRET_LEAK, c, place.code(), "the request carries the real secret of credential "
                            + c.name() + " in " + place.label() + "; agents hold sentinels, never real keys");
                }
            }
        }

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
                return Injector.refusal(Injection.Outcome.MISMATCH, c, where.code(), "a sentinel of credential " + c.name() + " in " + where.label()
                        + " is headed to " + destination.authority() + ", outside the credential's scope (" + miss + ")");
            }
        }

        // Plain http is readable (and rewritable) by every hop: a secret never goes out on it
        // unless the credential says so.
        if (!request.tls()) {
            for (CredentialSpec c : credentials) {
                if (sentinelAt.containsKey(c.name()) && !c.allowPlaintext()) {
                    Place where = sentinelAt.get(c.name());
                    return Injector.refusal(Injection.Outcome.PLAINTEXT, c, where.code(), "a sentinel of credential " + c.name() + " in "
                            + where.label() + " would be replaced over plain http; use https");
                }
            }
        }
        return null;
    }

    /**
     * The needles of {@code secrets} (each value and the parts read with it, a session token included), in config
     * order; those of the last request when the values are the same.
     */
    private List<CredentialNeedles> secretNeedles(Map<String, SecretLease> secrets) {
        SecretNeedles last = lastSecretNeedles;
        if (last.madeFrom(secrets)) {
            return last.needles();
        }
        List<CredentialNeedles> needles = new ArrayList<>();
        for (CredentialSpec c : credentials) {
            SecretLease lease = secrets.get(c.name());
            if (lease != null) {
                needles.add(new CredentialNeedles(c, lease.values().stream().map(v -> Needle.of(v.reveal())).toList()));
            }
        }
        lastSecretNeedles = new SecretNeedles(Map.copyOf(secrets), List.copyOf(needles));
        return needles;
    }

    private static Place firstPlace(Needle needle, List<Place> places) {
        for (Place place : places) {
            if (needle.in(place)) {
                return place;
            }
        }
        return null;
    }
}
