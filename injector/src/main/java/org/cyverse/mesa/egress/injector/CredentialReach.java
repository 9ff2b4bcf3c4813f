package org.cyverse.mesa.egress.injector;

import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.HostPattern;
import org.cyverse.mesa.egress.allowlist.PathGlob;

/** Whether a request lies within a credential's scope: {@code hosts}, {@code ports}, {@code methods}, {@code paths}. */
final class CredentialReach {

    private CredentialReach() {}

    static boolean hostMatches(CredentialSpec c, Destination destination) {
        for (HostPattern host : c.hosts()) {
            if (host.matches(destination)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the host and port are covered (methods and paths aside). */
    static boolean covers(CredentialSpec c, Destination destination) {
        return hostMatches(c, destination) && c.ports().contains(destination.port());
    }

    /**
     * {@code null} when the request is within scope, otherwise what is outside it, for a
     * refusal's detail (never the path itself: it is the client's text).
     *
     * @param path without the query; an ambiguous path matches no glob, so it is outside any
     *     credential with {@code paths}
     */
    static String miss(CredentialSpec c, Destination destination, String method, String path) {
        if (!hostMatches(c, destination)) {
            return "host not in its hosts";
        }
        if (!c.ports().contains(destination.port())) {
            return "port " + destination.port() + " not in its ports";
        }
        if (!c.methods().isEmpty() && !c.methods().contains(method)) {
            return "method " + method + " not in its methods";
        }
        if (!c.paths().isEmpty() && c.paths().stream().noneMatch(glob -> glob.matches(path))) {
            return "path not covered by its paths";
        }
        return null;
    }
}
