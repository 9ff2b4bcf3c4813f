package org.cyverse.mesa.egress.injector;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The secret sources of one proxy, by the scheme of {@link SecretRef}: {@code file:} and
 * {@code env:} always, {@code openbao:} when a broker is configured, and any the caller supplies
 * (a caller's source wins over a built-in one of the same scheme). {@link #close} revokes what the
 * OpenBao source holds.
 */
public final class SecretSources implements AutoCloseable {

    private final Map<String, SecretSource> bySchemes;
    private final BrokerSource openBao;

    private SecretSources(Map<String, SecretSource> bySchemes, BrokerSource openBao) {
        this.bySchemes = Map.copyOf(bySchemes);
        this.openBao = openBao;
    }

    /**
     * @param openBao makes the broker's source ({@code openbao:}), or {@code null} when the config has none; no network
     *     call is made here
     * @param given sources beyond the built-in ones, by scheme (tests, embedders)
     * @param environment what {@code env:} reads
     * @throws IOException when the broker's CA certificate cannot be read
     */
    public static SecretSources create(BrokerSource.Factory openBao, Map<String, SecretSource> given, Map<String, String> environment)
            throws IOException {
        Map<String, SecretSource> sources = new HashMap<>();
        sources.put("file", new FileSecretSource());
        sources.put("env", new EnvSecretSource(environment));
        BrokerSource broker = null;
        if (openBao != null && !given.containsKey("openbao")) {
            broker = openBao.open();
            sources.put("openbao", broker);
        }
        sources.putAll(given);
        return new SecretSources(sources, broker);
    }

    /** The sources by scheme. */
    public Map<String, SecretSource> bySchemes() {
        return bySchemes;
    }

    /**
     * Fetches {@code ref} from the source of its scheme in {@code bySchemes}. Blocks.
     *
     * @throws SecretUnavailableException when no source serves the scheme, the fetch failed, or it returned no value
     */
    public static SecretLease fetch(Map<String, SecretSource> bySchemes, SecretRef ref) throws SecretUnavailableException {
        SecretSource source = bySchemes.get(ref.scheme());
        if (source == null) {
            throw new SecretUnavailableException("no source serves " + ref.scheme() + ": secrets");
        }
        SecretLease lease = source.fetch(ref);
        if (lease == null || lease.secret() == null) {
            throw new SecretUnavailableException("no value was returned for " + ref);
        }
        return lease;
    }

    /**
     * Fetches {@code ref} with {@code parts} (see {@link SecretSource#fetch(SecretRef, Map)}): the parts of
     * {@code ref}'s scheme by its source, in one call, the others each by their own. Blocks.
     *
     * @throws SecretUnavailableException as {@link #fetch(Map, SecretRef)}, for the value or any part
     */
    public static SecretLease fetch(Map<String, SecretSource> bySchemes, SecretRef ref, Map<String, SecretRef> parts)
            throws SecretUnavailableException {
        if (parts.isEmpty()) {
            return fetch(bySchemes, ref);
        }
        SecretSource source = bySchemes.get(ref.scheme());
        if (source == null) {
            throw new SecretUnavailableException("no source serves " + ref.scheme() + ": secrets");
        }
        Map<String, SecretRef> together = new LinkedHashMap<>();
        Map<String, SecretRef> apart = new LinkedHashMap<>();
        parts.forEach((name, part) -> (part.scheme().equals(ref.scheme()) ? together : apart).put(name, part));
        SecretLease lease = source.fetch(ref, together);
        if (lease == null || lease.secret() == null || !lease.parts().keySet().containsAll(together.keySet())) {
            throw new SecretUnavailableException("no value was returned for " + ref + " or a value read with it");
        }
        Map<String, SecretLease> more = new LinkedHashMap<>();
        for (Map.Entry<String, SecretRef> p : apart.entrySet()) {
            more.put(p.getKey(), fetch(bySchemes, p.getValue()));
        }
        return lease.with(more);
    }

    /** Sets who is told when OpenBao revoked the proxy's own token (the kill switch); nothing happens without a broker. */
    public void onBrokerTokenRevoked(Consumer<String> listener) {
        if (openBao != null) {
            openBao.onTokenRevoked(listener);
        }
    }

    /** Revokes the leases the OpenBao source holds (within its own time budget); the others hold nothing. */
    @Override
    public void close() {
        if (openBao != null) {
            openBao.close();
        }
    }
}
