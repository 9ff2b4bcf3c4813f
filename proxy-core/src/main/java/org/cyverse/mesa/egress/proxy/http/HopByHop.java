package org.cyverse.mesa.egress.proxy.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Removes hop-by-hop fields (RFC 9110 section 7.6.1): Connection and the fields it names,
 * Keep-Alive, TE, Trailer, Upgrade, and every Proxy-* field (Proxy-Authorization must never
 * reach an upstream). Transfer-Encoding stays: the message framing on the next hop depends on it.
 */
public final class HopByHop {

    private HopByHop() {}

    /** Removes the hop-by-hop fields from {@code headers}, in place. */
    public static void strip(HttpHeaders headers) {
        for (String connection : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : connection.split(",")) {
                String name = token.trim();
                if (!name.isEmpty() && !name.equalsIgnoreCase("transfer-encoding")) {
                    headers.remove(name);
                }
            }
        }
        headers.remove(HttpHeaderNames.CONNECTION);
        headers.remove(HttpHeaderNames.KEEP_ALIVE);
        headers.remove(HttpHeaderNames.TE);
        headers.remove(HttpHeaderNames.TRAILER);
        headers.remove(HttpHeaderNames.UPGRADE);
        List<String> proxyFields = new ArrayList<>();
        for (Map.Entry<String, String> e : headers) {
            if (e.getKey().toLowerCase(Locale.ROOT).startsWith("proxy-")) {
                proxyFields.add(e.getKey());
            }
        }
        proxyFields.forEach(headers::remove);
    }
}
