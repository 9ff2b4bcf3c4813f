package org.cyverse.mesa.egress.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;

/**
 * URLs of services the proxy itself calls with a secret (LiteLLM's admin API with the master key,
 * the approval webhook with its signature): https, or plain http to a loopback address only.
 */
final class HttpsUrls {

    private HttpsUrls() {}

    /**
     * Reads {@code key} of {@code l}, required.
     *
     * @param what what the URL is, for messages ("the LiteLLM proxy's base URL")
     * @param example e.g. {@code https://llm-api.cyverse.ai}
     * @param why why plain http is refused ("the master key goes with every call")
     * @return the URL, or {@code null} when a problem was reported
     */
    static URI read(MapReader l, String key, String what, String example, String why) {
        String text = l.requiredString(key);
        if (text == null) {
            return null;
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            l.problem(key, "is not a URL: " + e.getMessage());
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
            l.problem(key, "must be an https:// URL of " + what + ", e.g. " + example + ", got \"" + text + "\"");
            return null;
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            l.problem(key, "must be " + what + ", without user, query or fragment");
            return null;
        }
        if (scheme.equals("http") && !loopback(uri.getHost())) {
            l.problem(key, "must use https: " + why + " (plain http is accepted only to a loopback address)");
            return null;
        }
        return uri;
    }

    /** {@code localhost}, or an address literal (any spelling {@link Destination} reads) in 127/8 or ::1; never resolved. */
    private static boolean loopback(String host) {
        try {
            Destination destination = Destination.parse(host, 443);
            byte[] address = destination.addressBytes();
            return address == null ? destination.host().equals("localhost") : InetAddress.getByAddress(address).isLoopbackAddress();
        } catch (InvalidDestinationException | UnknownHostException e) {
            return false;
        }
    }
}
