package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The text edits injection and scrubbing make to header values and to the request URI. */
final class HeaderRewrite {

    private HeaderRewrite() {}

    /**
     * {@code value} with {@code sentinel} replaced by {@code secret}: inside Basic credentials
     * when they hold it (decoded, replaced, re-encoded, as git's {@code x-access-token:TOKEN}
     * needs), otherwise in the text as sent.
     */
    static String replace(String value, String sentinel, String secret) {
        BasicCredentials basic = BasicCredentials.parse(value);
        String sentinelBytes = PercentText.bytes(sentinel);
        if (basic != null && basic.decoded().contains(sentinelBytes)) {
            return basic.encode(basic.decoded().replace(sentinelBytes, PercentText.bytes(secret)));
        }
        return value.contains(sentinel) ? value.replace(sentinel, secret) : value;
    }

    /**
     * The origin-form with {@code sentinel} replaced by the percent-encoded {@code secret},
     * wherever the sentinel appears plainly or percent-encoded. Encoded, the secret cannot add
     * a {@code /}, {@code ?}, {@code &} or {@code #} that would change what the URI means.
     */
    static String replaceInUri(String pathAndQuery, String sentinel, String secret) {
        String encoded = PercentText.encode(secret);
        String uri = pathAndQuery;
        if (sentinel.indexOf('%') >= 0) {
            // Such a sentinel is also found as written (a decoded search would look for other bytes).
            uri = uri.replace(sentinel, encoded);
        }
        PercentText text = PercentText.of(uri);
        String needle = PercentText.bytes(sentinel);
        return text.decoded().contains(needle) ? text.replace(needle, encoded) : uri;
    }

    /**
     * Sets {@code name} to {@code value}: the first header of that name (any case) takes the new
     * value in its place, the others go, so the upstream sees exactly one, ours. A client's own
     * {@code X-Api-Key} beside our {@code x-api-key} would leave it to the upstream to pick.
     */
    static void set(List<Map.Entry<String, String>> headers, String name, String value) {
        List<Map.Entry<String, String>> out = new ArrayList<>(headers.size() + 1);
        boolean placed = false;
        for (Map.Entry<String, String> h : headers) {
            if (!h.getKey().equalsIgnoreCase(name)) {
                out.add(h);
            } else if (!placed) {
                out.add(Map.entry(name, value));
                placed = true;
            }
        }
        if (!placed) {
            out.add(Map.entry(name, value));
        }
        headers.clear();
        headers.addAll(out);
    }

    /**
     * {@code value} with every key of {@code replacements} replaced, leftmost-longest and
     * without re-scanning replaced text, as {@link StreamReplacer} does for bodies. Each key is
     * also looked for as its UTF-8 bytes one char per byte, as header values arrive.
     */
    static String replaceAll(String value, Map<String, String> replacements) {
        List<String[]> patterns = new ArrayList<>();
        replacements.forEach((from, to) -> {
            if (value.contains(from)) {
                patterns.add(new String[] {from, to});
            }
            String fromBytes = PercentText.bytes(from);
            if (!fromBytes.equals(from) && value.contains(fromBytes)) {
                patterns.add(new String[] {fromBytes, PercentText.bytes(to)});
            }
        });
        if (patterns.isEmpty()) {
            return value;
        }
        StringBuilder out = new StringBuilder(value.length());
        int i = 0;
        while (i < value.length()) {
            String[] best = null;
            for (String[] p : patterns) {
                if (value.startsWith(p[0], i) && (best == null || p[0].length() > best[0].length())) {
                    best = p;
                }
            }
            if (best != null) {
                out.append(best[1]);
                i += best[0].length();
            } else {
                out.append(value.charAt(i++));
            }
        }
        return out.toString();
    }
}
