package org.cyverse.mesa.egress.admission;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.allowlist.Destination;

/**
 * What the proxy knows of one request when it decides it: how it arrived, its target as sent, its
 * method and headers. No Netty types: the handlers, {@code check} and the tests build the same
 * facts.
 *
 * @param arrival how the request reached the proxy
 * @param target the request target as sent: an absolute URI (a proxy request), {@code host:port}
 *     (a CONNECT) or an origin-form path, or an absolute https URI (inside an intercepted tunnel)
 * @param method as sent (the policy compares methods case-insensitively; credential scopes and
 *     the upstream see them as sent)
 * @param headers in order, names as sent, hop-by-hop fields already removed (empty for a CONNECT)
 * @param tunnel the CONNECT target, for a request inside an intercepted tunnel; else {@code null}
 */
public record RequestFacts(Arrival arrival, String target, String method, List<Map.Entry<String, String>> headers,
        Destination tunnel) {

    /** How a request reached the proxy. */
    public enum Arrival {
        /** A plain-http request to the proxy, absolute-form ({@code GET http://host/path}). */
        PROXY_REQUEST,
        /** {@code CONNECT host:port}. */
        CONNECT,
        /** A request inside a CONNECT tunnel the proxy terminates. */
        INSIDE_TUNNEL
    }

    public RequestFacts {
        headers = List.copyOf(headers);
    }

    /** A plain-http proxy request. */
    public static RequestFacts proxyRequest(String method, String absoluteUri, List<Map.Entry<String, String>> headers) {
        return new RequestFacts(Arrival.PROXY_REQUEST, absoluteUri, method, headers, null);
    }

    /** A CONNECT to {@code authority}. */
    public static RequestFacts connect(String authority) {
        return new RequestFacts(Arrival.CONNECT, authority, "CONNECT", List.of(), null);
    }

    /** A request inside an intercepted tunnel to {@code tunnel}. */
    public static RequestFacts insideTunnel(Destination tunnel, String method, String target, List<Map.Entry<String, String>> headers) {
        return new RequestFacts(Arrival.INSIDE_TUNNEL, target, method, headers, tunnel);
    }

    /** The first value of header {@code name} (case-insensitive), or {@code null}. */
    String header(String name) {
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    /** Without the target or header values: a client that leaks a key puts it there. */
    @Override
    public String toString() {
        return "RequestFacts[" + arrival + " " + method + ", " + headers.size() + " headers]";
    }
}
