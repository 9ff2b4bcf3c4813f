package org.cyverse.mesa.egress.admission;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;

/** The checks {@link Admission} makes on a target beyond the policy: IP literals, and the names inside a tunnel. */
final class TargetChecks {

    private TargetChecks() {}

    /** Whether an IP literal destination passes the address guard (a name always does here: the dialer vets its addresses). */
    static boolean literalPermitted(AddressGuard guard, Destination destination) {
        byte[] literal = destination.addressBytes();
        if (literal == null) {
            return true;
        }
        try {
            return guard.check(InetAddress.getByAddress(literal)).permitted();
        } catch (UnknownHostException e) {
            return false; // four or sixteen bytes always make an address; fail closed regardless
        }
    }

    /** Whether a Host header names the tunnel's destination. */
    static boolean hostHeaderNames(Destination tunnel, String hostHeader) {
        try {
            RequestTarget authority = RequestTarget.parseAbsolute("https://" + hostHeader + "/");
            return names(tunnel, authority.host(), authority.port());
        } catch (RequestTarget.BadTargetException e) {
            return false;
        }
    }

    /**
     * Why the Host of a request inside {@code tunnel} is refused, or {@code null}: 400 when it is
     * more than {@code host[:port]} (a lenient parser reads "{@code localhost/x}" as localhost), 421
     * when absent or naming another host.
     */
    static Refusal hostHeader(Destination tunnel, String host, String profile) {
        if (host != null && !host.isEmpty() && host.chars().anyMatch(c -> c == '/' || c == '?' || c == '#' || c == '@' || c == '\\'
                || c <= 0x20 || c >= 0x7f)) {
            return Refusals.badRequest(Refusals.Problem.BAD_HOST_HEADER, "Host " + abbreviate(host));
        }
        if (host == null || !hostHeaderNames(tunnel, host)) {
            return Refusals.of(Reason.HOST_MISMATCH, tunnel.host(), profile, host == null ? "no Host header" : "Host " + abbreviate(host));
        }
        return null;
    }

    /** Whether host and port name the tunnel's destination, once canonicalized. */
    static boolean names(Destination tunnel, String host, int port) {
        try {
            Destination d = Destination.parse(host, port);
            return d.host().equals(tunnel.host()) && d.port() == tunnel.port();
        } catch (InvalidDestinationException e) {
            return false;
        }
    }

    /** At most 64 characters of client-written text, for an error sentence. */
    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
