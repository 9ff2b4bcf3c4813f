package org.cyverse.mesa.egress.injector;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * A request as the proxy is about to send it upstream, without Netty types.
 *
 * @param tls whether it goes over TLS (an intercepted CONNECT) rather than plain http
 * @param destination the canonical destination
 * @param method uppercase
 * @param pathAndQuery origin-form, e.g. {@code /v1/messages?beta=true}
 * @param headers in order, names as sent (hop-by-hop fields already removed)
 */
public record OutgoingRequest(boolean tls, Destination destination, String method, String pathAndQuery,
        List<Map.Entry<String, String>> headers) {
    public OutgoingRequest {
        headers = List.copyOf(headers);
    }
}
