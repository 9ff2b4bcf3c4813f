package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.cyverse.mesa.egress.body.ContentCoding;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.http.HopByHop;

/**
 * Keeps a real secret that an upstream echoes back (an error page quoting the request, a debug
 * endpoint) from reaching the agent: response header values always, and bodies that are
 * uncompressed text, where a secret can be seen at all.
 */
public final class ResponseScrubbing {

    private ResponseScrubbing() {}

    static void scrubHeaders(HttpHeaders headers, EchoScrubber echo) {
        List<Map.Entry<String, String>> entries = new ArrayList<>(headers.entries());
        boolean changed = false;
        for (int i = 0; i < entries.size(); i++) {
            String value = entries.get(i).getValue();
            String scrubbed = echo.headerValue(value);
            if (!scrubbed.equals(value)) {
                entries.set(i, Map.entry(entries.get(i).getKey(), scrubbed));
                changed = true;
            }
        }
        if (changed) {
            headers.clear();
            entries.forEach(e -> headers.add(e.getKey(), e.getValue()));
        }
    }

    /** An interim (1xx) response's fields: hop-by-hop ones removed, the rest scrubbed (103 Early Hints can echo too). */
    public static void interim(HttpHeaders headers, EchoScrubber echo) {
        HopByHop.strip(headers);
        scrubHeaders(headers, echo);
    }

    /** Scrubs the trailer fields of a chunked response's end as header fields are (trailers are fields too). */
    public static void scrubTrailers(HttpObject msg, EchoScrubber echo) {
        if (msg instanceof LastHttpContent last && !last.trailingHeaders().isEmpty()) {
            scrubHeaders(last.trailingHeaders(), echo);
        }
    }

    /**
     * Whether the body of a host no credential covers is scrubbed: text without a content coding.
     * (On a credential's hosts every body is, decoded first.)
     */
    static boolean scrubbableBody(HttpHeaders headers) {
        if (!ContentCoding.identity(ContentCoding.of(headers))) {
            return false;
        }
        String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
        if (type == null) {
            return true; // unknown: scan it
        }
        String t = type.toLowerCase(Locale.ROOT);
        return t.startsWith("text/") || t.contains("json") || t.contains("xml") || t.contains("javascript")
                || t.contains("x-www-form-urlencoded") || t.contains("yaml");
    }
}
