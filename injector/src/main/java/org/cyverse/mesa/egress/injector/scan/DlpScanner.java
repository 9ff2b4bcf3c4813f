package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Looks for {@link DlpRule} patterns in a body as it streams (one char per byte), and in header
 * values. Each chunk is matched together with the last {@value #OVERLAP} bytes before it, so a
 * token cut by a chunk boundary is still seen whole (the rules' tokens are shorter than that).
 * Not thread-safe: one per body.
 */
public final class DlpScanner {

    static final int OVERLAP = 1024;

    private final List<DlpRule> rules;
    private final Set<String> ignored;
    private String tail = "";
    private DlpRule found;

    /** @param ignored values that never count (the configured sentinels) */
    public DlpScanner(List<DlpRule> rules, Set<String> ignored) {
        this.rules = List.copyOf(rules);
        this.ignored = Set.copyOf(ignored);
    }

    /** Scans {@code len} more bytes; returns the first rule that matched in the body so far, or {@code null}. */
    public DlpRule feed(byte[] bytes, int off, int len) {
        if (found != null || rules.isEmpty()) {
            return found;
        }
        String text = tail + new String(bytes, off, len, StandardCharsets.ISO_8859_1);
        found = first(text);
        tail = text.length() <= OVERLAP ? text : text.substring(text.length() - OVERLAP);
        return found;
    }

    /** The first rule matching in {@code text} (a header value, a decoded path), or {@code null}. */
    public DlpRule scan(String text) {
        return rules.isEmpty() ? null : first(text);
    }

    private DlpRule first(String text) {
        String lower = DlpRule.lower(text);
        for (DlpRule rule : rules) {
            if (rule.matches(text, lower, ignored)) {
                return rule;
            }
        }
        return null;
    }
}
