package org.cyverse.mesa.egress.admission;

/**
 * The destination a proxy request names: the absolute-form URI of a forwarded request
 * ({@code http://host:port/path?query}, RFC 9112 section 3.2.2) or the authority-form of a
 * CONNECT ({@code host:port}, section 3.2.3). Raw host text; canonicalization comes after.
 *
 * @param scheme {@code http}, {@code https}, or {@code null} for authority-form
 * @param host the host as sent, without IPv6 brackets
 * @param port the explicit port or the scheme's default
 * @param pathAndQuery origin-form to send upstream ({@code /} when the URI had no path)
 */
public record RequestTarget(String scheme, String host, int port, String pathAndQuery) {

    /** The path without the query, as the decision and the audit log see it. */
    public String path() {
        return pathOf(pathAndQuery);
    }

    /** The path of an origin-form target, without the query. */
    public static String pathOf(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        return q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    }

    /** Parses an absolute-form request target. */
    public static RequestTarget parseAbsolute(String uri) throws BadTargetException {
        int sep = uri.indexOf("://");
        if (sep <= 0) {
            throw new BadTargetException("the request target is not an absolute URI");
        }
        String scheme = uri.substring(0, sep).toLowerCase(java.util.Locale.ROOT);
        int defaultPort;
        if (scheme.equals("http")) {
            defaultPort = 80;
        } else if (scheme.equals("https")) {
            defaultPort = 443;
        } else {
            throw new BadTargetException("scheme \"" + scheme + "\" is not proxied (http only; https goes through CONNECT)");
        }
        int start = sep + 3;
        int end = start;
        while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
            end++;
        }
        String rest = uri.substring(end);
        if (rest.indexOf('#') >= 0) {
            throw new BadTargetException("the request target carries a fragment (#)");
        }
        if (rest.isEmpty()) {
            rest = "/";
        } else if (rest.charAt(0) == '?') {
            rest = "/" + rest;
        }
        HostPort hp = splitAuthority(uri.substring(start, end), defaultPort);
        return new RequestTarget(scheme, hp.host, hp.port, rest);
    }

    /** Parses the authority-form target of a CONNECT; the port is required. */
    public static RequestTarget parseAuthority(String authority) throws BadTargetException {
        HostPort hp = splitAuthority(authority, -1);
        return new RequestTarget(null, hp.host, hp.port, "");
    }

    private record HostPort(String host, int port) {}

    private static HostPort splitAuthority(String authority, int defaultPort) throws BadTargetException {
        if (authority.isEmpty()) {
            throw new BadTargetException("the request target names no host");
        }
        if (authority.indexOf('@') >= 0) {
            // userinfo in a proxy request target is ambiguous (RFC 9110 section 4.2.4 deprecates it).
            throw new BadTargetException("the request target carries user information (user@host)");
        }
        String host;
        String portText = null;
        if (authority.charAt(0) == '[') {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw new BadTargetException("unterminated IPv6 literal in \"" + authority + "\"");
            }
            host = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (after.charAt(0) != ':') {
                    throw new BadTargetException("unexpected text after the IPv6 literal in \"" + authority + "\"");
                }
                portText = after.substring(1);
            }
        } else {
            int colon = authority.lastIndexOf(':');
            if (colon >= 0 && authority.indexOf(':') != colon) {
                throw new BadTargetException("an IPv6 address needs brackets in \"" + authority + "\"");
            }
            host = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
        }
        int port;
        if (portText == null || (portText.isEmpty() && defaultPort > 0)) {
            if (defaultPort < 0) {
                throw new BadTargetException("CONNECT needs host:port, got \"" + authority + "\"");
            }
            port = defaultPort;
        } else {
            port = parsePort(portText, authority);
        }
        if (host.isEmpty()) {
            throw new BadTargetException("the request target names no host");
        }
        return new HostPort(host, port);
    }

    private static int parsePort(String text, String authority) throws BadTargetException {
        if (text.isEmpty() || text.length() > 5) {
            throw new BadTargetException("bad port in \"" + authority + "\"");
        }
        int port = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new BadTargetException("bad port in \"" + authority + "\"");
            }
            port = port * 10 + (c - '0');
        }
        if (port < 1 || port > 65535) {
            throw new BadTargetException("port out of range in \"" + authority + "\"");
        }
        return port;
    }

    /** A request target that cannot be used; the message is for a person. */
    public static final class BadTargetException extends Exception {
        BadTargetException(String message) {
            super(message);
        }
    }
}
