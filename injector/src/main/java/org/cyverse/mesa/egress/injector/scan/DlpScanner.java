package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Looks for {@link DlpRule} patterns in a body as it streams (one char per byte), and in header
 * values. Bytes are matched in runs of at least {@value #RUN} (or when {@link #flush} says the
 * bytes so far must be judged now), each run together with the last {@value #OVERLAP} bytes
 * before it, so a token cut by a run boundary is still seen whole (the rules' tokens are shorter
 * than that) and a body sent in tiny chunks costs what one sent whole does. Not thread-safe: one
 * per body.
 */
public final class DlpScanner {

    static final int OVERLAP = 1024;
    static final int RUN = 16 * 1024;

    private final List<DlpRule> rules;
    private final Set<String> ignored;
    private String tail = "";
    private final StringBuilder pending = new StringBuilder();
    private DlpRule found;

    /** @param ignored values that never count (the configured sentinels) */
    public DlpScanner(List<DlpRule> rules, Set<String> ignored) {
        this.rules = List.copyOf(rules);
        this.ignored = Set.copyOf(ignored);
    }

    /**
     * Takes {@code len} more bytes, matched once a run is complete; returns the first rule that
     * matched in the body so far, or {@code null}.
     */
    public DlpRule feed(byte[] bytes, int off, int len) {
        if (found != null || rules.isEmpty()) {
            return found;
        }
        pending.append(new String(bytes, off, len, StandardCharsets.ISO_8859_1));
        return pending.length() >= RUN ? flush() : null;
    }

    /** Matches what was taken and not matched yet; returns the first rule that matched in the body so far, or {@code null}. */
    public DlpRule flush() {
        if (found != null || pending.length() == 0) {
            return found;
        }
        String text = tail + pending;
        pending.setLength(0);
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
