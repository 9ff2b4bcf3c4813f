package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.admission.Admission;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.tls.UpstreamTls;

/**
 * The snapshot a request is decided against. A reload swaps the whole snapshot atomically; a
 * request in flight keeps the one it started with.
 *
 * @param config the config in force
 * @param guard the address guard for it
 * @param credentials the credentials' current values
 * @param injector decides and applies credentials (SPEC.md step 5)
 * @param upstreamTls TLS toward upstreams of intercepted connections
 * @param admission decides every request with this snapshot
 */
public record ProxyState(MesaConfig config, AddressGuard guard, CredentialStore credentials, Injector injector, UpstreamTls upstreamTls,
        Admission admission) {

    /** The name of the profile in force. */
    public String profile() {
        return config.profile().name();
    }

    /**
     * Whether {@code next} has the same credential values to fetch or mint as this snapshot, so
     * that its store can be kept: a change of {@code limits} alone keeps it (and its minted keys).
     */
    public boolean sameValuesAs(MesaConfig next) {
        return config.credentials().stream().map(c -> c.withLimits(null)).toList()
                .equals(next.credentials().stream().map(c -> c.withLimits(null)).toList());
    }
}
