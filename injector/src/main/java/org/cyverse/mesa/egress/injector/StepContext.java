package org.cyverse.mesa.egress.injector;

import java.net.http.HttpClient;
import java.util.function.Supplier;

/**
 * What a credential kind's step may use: the current values, and a client for the services its
 * checks ask while a request waits (GitHub's compare API for a push's fast-forward), made by
 * {@link ServiceClients} on first use.
 *
 * @param store the current values
 * @param services the client, or a supplier of {@code null} where nothing may be asked (the
 *     {@code check} command): a check that would ask then decides without it
 */
public record StepContext(SecretValues store, Supplier<HttpClient> services) {

    /** A context that asks no service. */
    public static StepContext offline(SecretValues store) {
        return new StepContext(store, () -> null);
    }
}
