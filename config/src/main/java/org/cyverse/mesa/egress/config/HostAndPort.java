package org.cyverse.mesa.egress.config;

/** A listen address such as {@code 127.0.0.1:3128}; port 0 picks a free port. */
public record HostAndPort(String host, int port) {

    /** @throws IllegalArgumentException when not {@code HOST:PORT} (IPv6 in brackets) */
    public static HostAndPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got \"" + text + "\"");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new IllegalArgumentException("an IPv6 address needs brackets: [" + host + "]:PORT");
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port is not a number in \"" + text + "\"");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range 0..65535 in \"" + text + "\"");
        }
        return new HostAndPort(host, port);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
