package org.cyverse.mesa.egress.allowlist;

/**
 * What is decided: a destination, and the method and path where the proxy can see them.
 *
 * @param destination the canonical destination
 * @param method the request method (uppercase), or {@code null} for an opaque CONNECT
 * @param path the request path without the query, or {@code null} for an opaque CONNECT
 */
public record Target(Destination destination, String method, String path) {

    /** A CONNECT whose content the proxy will not see. */
    public static Target tunnel(Destination destination) {
        return new Target(destination, null, null);
    }

    /** Whether method and path are known. */
    public boolean inspected() {
        return method != null;
    }
}
