package org.cyverse.mesa.egress.injector.sigv4;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.PercentText;
import org.cyverse.mesa.egress.injector.RequestUse;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretValues;
import org.cyverse.mesa.egress.injector.sigv4.SigV4Problem.Kind;

/**
 * The {@code aws_sigv4} credentials of SPEC.md step 5: a request to a credential's hosts signed
 * with its sentinel access key id is checked against the sentinel secret key, then signed again
 * with the real key, at the proxy's clock, in the client's region and service and with the
 * client's payload hash (which the upstream checks against the body). The request is recognised
 * by the {@code Credential=} of its {@code Authorization} header or the {@code X-Amz-Credential}
 * of its presigned query. Refused: a request to those hosts signed with another key id
 * ({@code credential_endpoint_mismatch}), a signature the proxy cannot reproduce or re-sign
 * ({@code sigv4_unsupported}), one that is not the sentinel's ({@code sigv4_signature_mismatch}),
 * a broken one ({@code bad_request}). Pure apart from reading the store and the clock; thread-safe.
 *
 * <p>The {@link org.cyverse.mesa.egress.injector.Injector} that runs before this step keeps the
 * sentinel key id away from other hosts and the real secret key away from every host.
 */
public final class SigV4Step implements CredentialStep {

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    /** The headers the proxy writes anew on a re-signed request; the client's are dropped. */
    private static final String TOKEN_HEADER = "x-amz-security-token";
    private static final List<String> REPLACED = List.of("authorization", "x-amz-date", TOKEN_HEADER);

    private final List<CredentialSpec> credentials;
    private final SecretValues store;
    private final Clock clock;

    /** @param credentials every configured credential; those with {@code aws_sigv4} are this step's */
    public SigV4Step(List<CredentialSpec> credentials, SecretValues store, Clock clock) {
        this.credentials = credentials.stream().filter(c -> c.kind(SigV4Keys.class) != null).toList();
        this.store = store;
        this.clock = clock;
    }

    @Override
    public Injection apply(OutgoingRequest request) {
        String pathAndQuery = request.pathAndQuery();
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        List<CredentialSpec> covering = credentials.stream()
                .filter(c -> c.inScope(request.destination(), request.method(), path)).toList();
        if (covering.isEmpty()) {
            return unchanged(request);
        }
        Map<String, List<String>> headers = byName(request.headers());
        QueryParams query;
        SigV4Auth.Found found;
        try {
            query = QueryParams.parse(q < 0 ? null : pathAndQuery.substring(q + 1));
        } catch (SigV4Problem p) {
            return refusal(covering.get(0), p, "query");
        }
        found = SigV4Auth.parse(headers.getOrDefault("authorization", List.of()), query, headers);
        if (found == null) {
            return unchanged(request); // anonymous, or not SigV4: nothing of ours to put on it
        }
        if (found.accessKeyId() == null && found.problem() != null) {
            return refusal(covering.get(0), found.problem(), "header"); // broken before its key id: say what is broken
        }
        CredentialSpec c = covering.stream().filter(s -> s.kind(SigV4Keys.class).sentinelAccessKeyId().equals(found.accessKeyId())).findFirst()
                .orElse(null);
        if (c == null) {
            CredentialSpec first = covering.get(0);
            return refused(Injection.Outcome.MISMATCH, first, "the request to a host of credential " + first.name() + " is signed with an"
                    + " access key id that is not its sentinel (the agent's AWS_ACCESS_KEY_ID must be the sentinel)");
        }
        String place = found.auth() != null && found.auth().presigned() || found.auth() == null && !headers.containsKey("authorization")
                ? "query" : "header";
        if (found.problem() != null) {
            return refusal(c, found.problem(), place);
        }
        if (!request.tls() && !c.allowPlaintext()) {
            return refused(Injection.Outcome.PLAINTEXT, c, "a request signed with the sentinel of credential " + c.name()
                    + " would be re-signed over plain http; use https");
        }
        // One snapshot: a temporary key id, its secret and its session token are only valid together.
        Optional<SecretLease> lease = store.lease(c.name());
        if (lease.isEmpty()) {
            return refused(Injection.Outcome.UNAVAILABLE, c, "credential " + c.name()
                    + " has no valid value now (not fetched yet, failed, expired or revoked)");
        }
        RealKey real = RealKey.of(c, lease.get());
        if (real == null) {
            return refused(Injection.Outcome.UNAVAILABLE, c, "the access key id fetched for credential " + c.name() + " ("
                    + c.kind(SigV4Keys.class).accessKeyIdRef() + ") is not an access key id (16 to 128 letters and digits)");
        }
        try {
            return resign(request, c, real, found.auth(), path, query, headers);
        } catch (SigV4Problem p) {
            return refusal(c, p, place);
        }
    }

    /** The real key a request is signed with: the key id (written or fetched), the secret, the session token if any. */
    private record RealKey(String id, Secret secret, Secret sessionToken) {
        /** {@code null} when a fetched key id is not one. */
        static RealKey of(CredentialSpec c, SecretLease lease) {
            SigV4Keys keys = c.kind(SigV4Keys.class);
            Secret token = lease.part(SigV4Keys.SESSION_TOKEN).orElse(null);
            if (keys.accessKeyId() != null) {
                return new RealKey(keys.accessKeyId(), lease.secret(), token); // the config checked it
            }
            String id = lease.part(SigV4Keys.ACCESS_KEY_ID).map(Secret::reveal).orElse(null);
            return id == null || !SigV4Keys.KEY_ID.matcher(id).matches() ? null : new RealKey(id, lease.secret(), token);
        }
    }

    private Injection resign(OutgoingRequest request, CredentialSpec c, RealKey real, SigV4Auth auth, String path, QueryParams query,
            Map<String, List<String>> headers) throws SigV4Problem {
        PayloadMode mode = PayloadMode.of(auth, headers);
        Instant signedAt = instant(auth.amzDate());
        Instant now = clock.instant();
        QueryParams signedQuery = auth.presigned() ? query.without(List.of("X-Amz-Signature")) : query;
        verify(request, c, auth, path, signedQuery, mode);
        String amzDate = AMZ_DATE.format(now);
        String scope = amzDate.substring(0, 8) + "/" + auth.region() + "/" + auth.service() + "/aws4_request";
        // The client's session token (a sentinel, if any) is dropped; the real one is added, and signed, when there is one.
        TreeSet<String> signed = new TreeSet<>(auth.signedHeaders());
        signed.remove(TOKEN_HEADER);
        if (real.sessionToken() != null && !auth.presigned()) {
            signed.add(TOKEN_HEADER);
        }
        List<String> names = List.copyOf(signed);
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (Map.Entry<String, String> h : request.headers()) {
            if (h.getKey().equalsIgnoreCase("host")) {
                // Signed as the proxy sends it (RFC 9112 3.2.2: the target's authority), which may be spelled otherwise.
                out.add(Map.entry(h.getKey(), request.destination().hostField(request.tls() ? 443 : 80)));
            } else if (auth.presigned() ? !h.getKey().equalsIgnoreCase(TOKEN_HEADER) : !REPLACED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                out.add(h); // a presigned URL's signature is in its query: every other header stays
            }
        }
        byte[] key = SigV4Signer.signingKey(real.secret().reveal(), amzDate.substring(0, 8), auth.region(), auth.service());
        String credential = real.id() + "/" + scope;
        String pathAndQuery;
        ChunkResigner.Plan resigning = null;
        if (auth.presigned()) {
            long left = Duration.between(now, signedAt.plusSeconds(auth.expires())).getSeconds();
            if (left < 1) {
                throw new SigV4Problem(Kind.BAD_SIGNATURE, "the presigned URL expired at " + signedAt.plusSeconds(auth.expires()));
            }
            QueryParams kept = query.without(SigV4Auth.PRESIGN_PARAMS);
            List<QueryParams.Param> params = new ArrayList<>(kept.params());
            params.add(param("X-Amz-Algorithm", SigV4Auth.ALGORITHM));
            params.add(param("X-Amz-Credential", credential));
            params.add(param("X-Amz-Date", amzDate));
            params.add(param("X-Amz-Expires", Long.toString(Math.min(left, auth.expires()))));
            if (real.sessionToken() != null) {
                params.add(param("X-Amz-Security-Token", real.sessionToken().reveal()));
            }
            params.add(param("X-Amz-SignedHeaders", String.join(";", names)));
            QueryParams resigned = new QueryParams(params);
            String sig = sign(key, amzDate, scope, signable(request, path, resigned, signedSubset(out, names), mode, auth), names);
            params.add(param("X-Amz-Signature", sig));
            pathAndQuery = path + "?" + new QueryParams(params).raw();
        } else {
            out.add(Map.entry("X-Amz-Date", amzDate));
            if (real.sessionToken() != null) {
                out.add(Map.entry("X-Amz-Security-Token", real.sessionToken().reveal()));
            }
            String sig = sign(key, amzDate, scope, signable(request, path, query, signedSubset(out, names), mode, auth), names);
            out.add(Map.entry("Authorization", SigV4Auth.ALGORITHM + " Credential=" + credential + ", SignedHeaders="
                    + String.join(";", names) + ", Signature=" + sig));
            pathAndQuery = request.pathAndQuery();
            if (mode.signedChunks()) { // each chunk's signature chains to the seed: the client's, and now the real key's
                resigning = new ChunkResigner.Plan(c.name(), SigV4Signer.signingKey(c.kind(SigV4Keys.class).sentinelSecretAccessKey(), auth.scopeDate(),
                        auth.region(), auth.service()), auth.amzDate(), auth.scope(), auth.signature(), key, amzDate, scope, sig,
                        mode.hash().equals(PayloadMode.SIGNED_CHUNKS_TRAILER));
            }
        }
        String action = "re-signed with the real key (" + (auth.presigned() ? "presigned URL" : "Authorization header") + ", "
                + mode.hash() + ")";
        return new Injection(Injection.Outcome.INJECTED, c.name(), pathAndQuery, out, Map.of(),
                List.of(new Injection.Applied(c.name(), List.of(action))), "re-signed for " + c.name(), null, resigning == null ? RequestUse.NONE : resigning);
    }

    /** Refuses a signature that is not the sentinel secret's over exactly this request. */
    private static void verify(OutgoingRequest request, CredentialSpec c, SigV4Auth auth, String path, QueryParams signedQuery,
            PayloadMode mode) throws SigV4Problem {
        String canonical = SigV4Signer.canonicalRequest(signable(request, path, signedQuery, signedSubset(request.headers(),
                auth.signedHeaders()), mode, auth), auth.signedHeaders());
        byte[] key = SigV4Signer.signingKey(c.kind(SigV4Keys.class).sentinelSecretAccessKey(), auth.scopeDate(), auth.region(), auth.service());
        String expected = SigV4Signer.signature(key, SigV4Signer.stringToSign(auth.amzDate(), auth.scope(), canonical));
        if (!SigV4Signer.same(expected, auth.signature())) {
            throw new SigV4Problem(Kind.BAD_SIGNATURE, "the signature is not the one credential " + c.name() + "'s sentinel secret key makes"
                    + " over this request (the agent's AWS_SECRET_ACCESS_KEY must be the sentinel; or a hop changed a signed part)");
        }
    }

    private static String sign(byte[] key, String amzDate, String scope, SigV4Signer.Signable signable, List<String> names)
            throws SigV4Problem {
        return SigV4Signer.signature(key, SigV4Signer.stringToSign(amzDate, scope, SigV4Signer.canonicalRequest(signable, names)));
    }

    private static SigV4Signer.Signable signable(OutgoingRequest request, String path, QueryParams query,
            List<Map.Entry<String, String>> headers, PayloadMode mode, SigV4Auth auth) {
        return new SigV4Signer.Signable(request.method(), request.destination().host(), request.destination().port(), path, query, headers,
                mode.hash(), auth.s3());
    }

    /** The fields of {@code headers} that {@code names} lists, in their order. */
    private static List<Map.Entry<String, String>> signedSubset(List<Map.Entry<String, String>> headers, List<String> names) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (Map.Entry<String, String> h : headers) {
            if (names.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                out.add(h);
            }
        }
        return out;
    }

    private static QueryParams.Param param(String name, String value) {
        return new QueryParams.Param(PercentText.encode(name) + "=" + PercentText.encode(value), name, value);
    }

    private static Instant instant(String amzDate) throws SigV4Problem {
        try {
            return Instant.from(AMZ_DATE.parse(amzDate));
        } catch (DateTimeParseException e) {
            throw new SigV4Problem(Kind.MALFORMED, "X-Amz-Date is not a date");
        }
    }

    private static Map<String, List<String>> byName(List<Map.Entry<String, String>> headers) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : headers) {
            out.computeIfAbsent(h.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(h.getValue());
        }
        return out;
    }

    private static Injection refusal(CredentialSpec c, SigV4Problem p, String place) {
        return refused(switch (p.kind()) {
            case MALFORMED -> Injection.Outcome.MALFORMED;
            case UNSUPPORTED -> Injection.Outcome.UNSUPPORTED;
            case BAD_SIGNATURE -> Injection.Outcome.BAD_SIGNATURE;
        }, c, p.getMessage(), place);
    }

    private static Injection refused(Injection.Outcome outcome, CredentialSpec c, String detail) {
        return refused(outcome, c, detail, "header");
    }

    private static Injection refused(Injection.Outcome outcome, CredentialSpec c, String detail, String place) {
        return new Injection(outcome, c.name(), null, null, Map.of(), List.of(), detail, place);
    }

    private static Injection unchanged(OutgoingRequest request) {
        return new Injection(Injection.Outcome.UNCHANGED, null, request.pathAndQuery(), request.headers(), Map.of(), List.of(),
                "no credential applies", null);
    }
}
