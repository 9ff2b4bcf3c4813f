package org.cyverse.mesa.egress.injector;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * A secret source that is a broker holding leases for the proxy (OpenBao): its scheme's secrets,
 * the leases revoked on {@link #close}, and word when the broker revoked the proxy's own token.
 */
public interface BrokerSource extends SecretSource, AutoCloseable {

    /** Sets who is told when the broker revoked the proxy's own token (the kill switch). */
    void onTokenRevoked(Consumer<String> listener);

    /** Revokes what the broker holds for the proxy, within the broker's own time budget. */
    @Override
    void close();

    /** Makes the broker's source (no network call); {@code IOException} when its trust cannot be read. */
    @FunctionalInterface
    interface Factory {
        BrokerSource open() throws IOException;
    }
}
