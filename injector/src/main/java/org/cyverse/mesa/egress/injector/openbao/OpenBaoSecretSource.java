package org.cyverse.mesa.egress.injector.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.injector.BrokerSource;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretSource;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * Secrets from OpenBao (scheme {@code openbao}, SPEC.md: {@code openbao:PATH#FIELD}, KV v2 paths
 * include {@code data/}). The {@code CredentialStore} in front of it caches, refreshes at two
 * thirds of each value's lifetime and serves requests without waiting; this class decides that
 * lifetime:
 * <ul>
 * <li>KV (no lease): {@code now + kvTtl} (default 5 min), so a revoked or changed KV value is
 * seen within one kvTtl;</li>
 * <li>leased secrets: the lease's duration; a refresh renews the lease
 * ({@code sys/leases/renew}) instead of minting new credentials, and reads a fresh secret only when
 * the lease cannot be renewed or its max TTL is near;</li>
 * <li>both: never past the expiry of the token that read them (a lease dies with its token).</li>
 * </ul>
 * A 403 drops the value at once ({@code revoked}); a lease that OpenBao no longer knows before
 * its expiry was revoked by an operator and its reference is refused from then on; 503, a
 * timeout or a refused connection leave a still-valid value in place. {@link #close} revokes every
 * lease held, within {@code closeBudget}.
 */
public final class OpenBaoSecretSource implements BrokerSource {

    private static final Logger LOG = Logger.getLogger(OpenBaoSecretSource.class.getName());

    private final OpenBaoSettings settings;
    private final OpenBaoClient client;
    private final TokenKeeper keeper;
    private final LeaseBook leases = new LeaseBook();
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OpenBaoSecretSource(OpenBaoSettings settings, Clock clock) throws IOException {
        this.settings = settings;
        this.clock = clock;
        this.client = new OpenBaoClient(settings, clock);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mesa-egress-openbao");
            t.setDaemon(true);
            return t;
        });
        LoginMethod login = switch (settings.method()) {
            case KUBERNETES, JWT -> new JwtLogin(client, settings);
            case TOKEN -> new TokenFileLogin(client, settings);
            case WRAPPED -> new WrappedTokenLogin(client, settings);
        };
        this.keeper = new TokenKeeper(login, client, scheduler, clock);
    }

    /**
     * Sets who is told, once, when the proxy's own OpenBao token is found revoked (not only one
     * secret's policy): revocation is a kill switch.
     */
    @Override
    public void onTokenRevoked(Consumer<String> listener) {
        keeper.onRevoked(listener);
    }

    /**
     * A source for {@code settings}. Makes no call to OpenBao yet: the first fetch logs in, so a
     * proxy started while OpenBao is down starts anyway (not ready until the secrets come).
     *
     * @throws IOException when {@code ca_cert} cannot be read as PEM certificates
     */
    public static OpenBaoSecretSource create(OpenBaoSettings settings) throws IOException {
        return new OpenBaoSecretSource(settings, Clock.systemUTC());
    }

    @Override
    public String scheme() {
        return "openbao";
    }

    @Override
    public SecretLease fetch(SecretRef ref) throws SecretUnavailableException {
        return fetch(ref, Map.of());
    }

    /**
     * Parts at {@code ref}'s own path come from the same read (and the same lease, renewed together):
     * OpenBao's AWS engine issues a new key id, secret key and session token on every read of
     * {@code aws/creds/ROLE}, so reading them apart would mix three key pairs. Parts elsewhere are read apart.
     */
    @Override
    public SecretLease fetch(SecretRef ref, Map<String, SecretRef> parts) throws SecretUnavailableException {
        Map<String, String> fields = new LinkedHashMap<>();
        Map<String, SecretRef> elsewhere = new LinkedHashMap<>();
        parts.forEach((name, part) -> {
            if (part.location().equals(ref.location())) {
                fields.put(name, part.key());
            } else {
                elsewhere.put(name, part);
            }
        });
        SecretLease lease = read(ref, fields);
        Map<String, SecretLease> more = new LinkedHashMap<>();
        for (Map.Entry<String, SecretRef> p : elsewhere.entrySet()) {
            more.put(p.getKey(), read(p.getValue(), Map.of()));
        }
        return lease.with(more);
    }

    private SecretLease read(SecretRef ref, Map<String, String> fields) throws SecretUnavailableException {
        String gone = leases.revokedReason(ref);
        if (gone != null) {
            throw new SecretUnavailableException(gone, true, null);
        }
        AuthToken token;
        try {
            token = keeper.token();
        } catch (OpenBaoException e) {
            throw e.unavailable();
        }
        LeaseBook.Held held = leases.current(ref);
        if (held != null && !held.answer.parts().keySet().containsAll(fields.keySet())) {
            leases.supersede(held); // read without the fields now wanted: a fresh read brings them
            held = null;
        }
        if (held != null) {
            SecretLease renewed = renew(held, token);
            if (renewed != null) {
                return renewed;
            }
        }
        JsonNode body;
        try {
            body = client.read(token, ref.location());
        } catch (OpenBaoException e) {
            if (e.denied()) {
                keeper.deniedWith(token);
            }
            throw e.unavailable();
        }
        SecretAnswer answer = SecretAnswer.parse(body, ref, fields);
        Instant now = clock.instant();
        if (answer.leased()) {
            LeaseBook.Held fresh = leases.hold(ref, answer, token, now.plusSeconds(answer.leaseSeconds()));
            return lease(answer, fresh.expiresAt, token, null);
        }
        return lease(answer, now.plus(settings.timeouts().kvTtl()), token, answer.version());
    }

    /** Renews the lease behind a cached value; {@code null} when a fresh read is due instead. */
    private SecretLease renew(LeaseBook.Held held, AuthToken token) throws SecretUnavailableException {
        Instant now = clock.instant();
        if (held.session != token || !held.answer.renewable() || held.expired(now)) {
            leases.supersede(held);
            return null;
        }
        try {
            long wanted = held.answer.leaseSeconds();
            long got = client.renewLease(token, held.leaseId(), wanted).path("lease_duration").asLong(0);
            if (got <= 0 || got * 3 < wanted) {
                leases.supersede(held); // the max TTL is near: new credentials before these run out
                return null;
            }
            held.expiresAt = clock.instant().plusSeconds(got);
            return lease(held.answer, held.expiresAt, token, null);
        } catch (OpenBaoException e) {
            if (e.denied()) {
                if (keeper.deniedWith(token)) {
                    throw e.unavailable();
                }
                LOG.warning("renewing the lease " + LeaseBook.pathOf(held.leaseId()) + " was refused (" + e.getMessage()
                        + "); reading a fresh secret instead (grant update on sys/leases/renew to renew)");
                leases.supersede(held);
                return null;
            }
            if (e.refused()) {
                // OpenBao no longer knows a lease that has not expired by our clock: it was revoked.
                String reason = "the OpenBao lease behind " + ref(held) + " (" + LeaseBook.pathOf(held.leaseId())
                        + ") was revoked before its expiry (" + e.getMessage() + "); revocation is the kill switch,"
                        + " so no new lease is read: restart the proxy to resume";
                leases.revoked(held, reason);
                LOG.severe(reason);
                throw new SecretUnavailableException(reason, true, null);
            }
            throw e.unavailable(); // down or sealed: the store keeps the still-valid value
        }
    }

    private static String ref(LeaseBook.Held held) {
        return held.ref.toString();
    }

    /** A value, with the parts read with it, that never outlives the token that read it. */
    private static SecretLease lease(SecretAnswer answer, Instant expiresAt, AuthToken token, String version) {
        Instant tokenEnd = token.expiresAt();
        Instant end = tokenEnd != null && tokenEnd.isBefore(expiresAt) ? tokenEnd : expiresAt;
        Map<String, SecretLease> parts = new LinkedHashMap<>();
        answer.parts().forEach((name, value) -> parts.put(name, new SecretLease(value, end, version)));
        return new SecretLease(answer.value(), end, version, parts);
    }

    /**
     * Stops renewing and revokes every lease held that has not expired, best effort, within
     * {@code closeBudget}. KV values have no lease; they simply stop being refreshed.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        keeper.close();
        List<LeaseBook.Held> held = leases.unexpired(clock.instant());
        AuthToken token = keeper.currentOrNull();
        if (!held.isEmpty() && token == null) {
            LOG.info(held.size() + " OpenBao lease(s) not revoked on stop: no valid token left (OpenBao revokes them with their token)");
        } else if (!held.isEmpty()) {
            Future<?> revoking = scheduler.submit(() -> revokeAll(held, token));
            try {
                revoking.get(settings.timeouts().closeBudget().toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                LOG.warning("gave up revoking OpenBao leases after " + settings.timeouts().closeBudget().toMillis()
                        + " ms; the rest expire with their TTL");
            } catch (ExecutionException e) {
                LOG.warning("revoking OpenBao leases failed (" + e.getCause().getClass().getSimpleName() + ")");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        scheduler.shutdownNow();
    }

    private void revokeAll(List<LeaseBook.Held> held, AuthToken token) {
        int done = 0;
        for (LeaseBook.Held h : held) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            try {
                client.revokeLease(token, h.leaseId());
                done++;
            } catch (OpenBaoException e) {
                LOG.warning("could not revoke the OpenBao lease " + LeaseBook.pathOf(h.leaseId()) + ": " + e.getMessage());
            }
        }
        LOG.info("revoked " + done + " of " + held.size() + " OpenBao lease(s) on stop");
    }
}
