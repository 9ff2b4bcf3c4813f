package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The current secret of every configured credential, fetched once at start and kept fresh in
 * the background: refreshed ahead of expiry, re-read when a source says its value changed.
 * {@link #current} never blocks and never calls a source. A credential whose value could not be
 * fetched, or whose value expired, has none: requests that need it are refused
 * ({@code credential_unavailable}), never forwarded without it.
 */
public final class CredentialStore implements AutoCloseable {

    /** Told about each fetch: credential name and outcome ({@code success}, {@code failure}, {@code revoked}). */
    public interface Listener {
        void refreshed(String credential, String outcome);
    }

    /**
     * @param credentials the configured credentials
     * @param sources one source per scheme
     * @param executor where fetches run (never a Netty event loop)
     * @param listener told about each fetch (metrics)
     */
    public CredentialStore(List<CredentialSpec> credentials, Map<String, SecretSource> sources,
            ScheduledExecutorService executor, Listener listener) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Starts the first fetch of every credential and the refresh loop. Returns at once. */
    public void start() {
        throw new UnsupportedOperationException("TODO");
    }

    /** The valid current value, or empty when there is none (not fetched yet, failed, expired, revoked). */
    public Optional<Secret> current(String credential) {
        throw new UnsupportedOperationException("TODO");
    }

    /** {@code null} once every credential has been resolved once; otherwise which are missing and why. */
    public String notReadyReason() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Stops refreshing. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("TODO");
    }
}
