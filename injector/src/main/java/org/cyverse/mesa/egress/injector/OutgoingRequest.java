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

    /**
     * Without header values, path or query: a client that leaks a real key puts it there, and a
     * record's generated {@code toString()} would print it into a log line.
     */
    @Override
    public String toString() {
        return "OutgoingRequest[tls=" + tls + ", destination=" + destination.authority() + ", method=" + method
                + ", " + headers.size() + " headers]";
    }
}
