package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.config.MesaConfig;

/**
 * The snapshot a request is decided against. A reload swaps the whole snapshot atomically; a
 * request in flight keeps the one it started with.
 */
record ProxyState(MesaConfig config, AddressGuard guard) {

    String profile() {
        return config.profile().name();
    }
}
