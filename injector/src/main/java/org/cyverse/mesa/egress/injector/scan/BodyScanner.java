package org.cyverse.mesa.egress.injector.scan;

import java.util.List;

/**
 * Scans one body as it streams for the needles of a {@link ScanPlan}, in nine views of the bytes
 * at once: as sent; percent-decoded ({@code %41} is {@code A}: form posts, URLs inside JSON);
 * percent-decoded twice ({@code %2541}: a value encoded again by a client that encodes what it
 * is given); JSON-unescaped ({@code \u0041}, {@code \/}: a value inside a JSON string); with line
 * breaks removed (MIME base64 wrapped at 76 characters, a PEM block); the percent-decoded and
 * JSON-unescaped views with their decoded line breaks removed too (wrapped base64 in a form field
 * or a JSON string); quoted-printable decoded ({@code =41}, and the soft line break {@code =}CR LF
 * a MIME part may put inside a value, RFC 2045 section 6.7); and HTML character references
 * decoded ({@code &#65;}, {@code &#x41;}, {@code &amp;}). Hex and UTF-16 are needles of the plan
 * ({@link EncodedForms}). A needle split across chunks is found as if the body had come whole.
 * Not thread-safe: one per body.
 *
 * <p>Cost: a view follows the raw stream without work of its own while the bytes read the same in
 * it (no {@code %}, backslash, line break, {@code =} or {@code &}); at such a byte it steps its own
 * state until it has caught up with the raw one (the automaton's state depends only on the last
 * few bytes, so two views that agree on a state agree from then on).
 */
public final class BodyScanner {

    /** A needle found: what it stands for, and in which view of the body. */
    public record Hit(Finding finding, String view) {
        /** Where, for a refusal's detail: never the value. */
        public String describe() {
            String form = finding.form().equals("as is") ? "" : " " + finding.form();
            return "the request body" + (view.isEmpty() ? "" : " (" + view + ")") + form;
        }
    }

    /** For each byte, the views (bit i: {@code views[i]}) in which it may read differently; 0 for most bytes. */
    private static final int[] SPECIAL = new int[256];

    /** For each byte, the views in which it may begin an escape right after a special byte (see {@link DecodingView#mayFollow}). */
    private static final int[] FOLLOWS = new int[256];

    static {
        DecodingView[] kinds = views(null);
        for (int b = 0; b < 256; b++) {
            for (int i = 0; i < kinds.length; i++) {
                FOLLOWS[b] |= kinds[i].mayFollow(b) ? 1 << i : 0;
            }
        }
        for (int b = 0; b < 256; b++) {
            for (int i = 0; i < kinds.length; i++) {
                SPECIAL[b] |= kinds[i].special(b) ? 1 << i : 0;
            }
        }
    }

    private final NeedleAutomaton automaton;
    private final List<Finding> findings;
    private final DecodingView[] views;
    private int raw;
    /** The views (bit i: {@code views[i]}) that read differently from the raw bytes now, each stepped on its own. */
    private int desynced;
    private Hit hit;
    private long scanned;

    BodyScanner(NeedleAutomaton automaton, List<Finding> findings) {
        this.automaton = automaton;
        this.findings = findings;
        this.views = automaton == null ? new DecodingView[0] : views(automaton);
    }

    /** The views, in the order a hit in two at once is reported (the plainest first). At most 32. */
    private static DecodingView[] views(NeedleAutomaton automaton) {
        return new DecodingView[] {
            new PercentView(automaton, false, 1),
            new JsonView(automaton, false),
            new JoinedLinesView(automaton),
            new PercentView(automaton, true, 1),
            new JsonView(automaton, true),
            new PercentView(automaton, false, 2),
            new QuotedPrintableView(automaton),
            new HtmlReferenceView(automaton),
        };
    }

    /** Scans {@code len} bytes; returns the first hit of the whole body so far, or {@code null}. */
    public Hit feed(byte[] bytes, int off, int len) {
        if (automaton == null || hit != null) {
            return hit;
        }
        scanned += len;
        int end = off + len;
        for (int i = off; i < end; i++) {
            int b = bytes[i] & 0xff;
            int before = raw;
            int special = SPECIAL[b];
            if (special != 0 && i + 1 < end) {
                special &= FOLLOWS[bytes[i + 1] & 0xff]; // a % not followed by a hex digit reads as itself: no view need step
            }
            int stepped = special | desynced;
            if (before == 0 && stepped == 0 && automaton.staysAtRoot(b)) {
                continue; // the common case: a byte that starts no needle, in every view at once
            }
            raw = automaton.next(before, b);
            if (automaton.match(raw) >= 0) {
                return found(automaton.match(raw), "");
            }
            // Only the views that read this byte differently, or still do since an earlier one, are stepped.
            while (stepped != 0) {
                int v = Integer.numberOfTrailingZeros(stepped);
                stepped &= stepped - 1;
                DecodingView view = views[v];
                if (view.inSync) {
                    view.state = before;
                    view.inSync = false;
                    desynced |= 1 << v;
                }
                view.take(b);
                if (view.match >= 0) {
                    return found(view.match, view.label());
                }
                if (view.idle() && view.state == raw) {
                    view.inSync = true;
                    desynced &= ~(1 << v);
                }
            }
        }
        return null;
    }

    /** Ends the body: a view that still holds bytes (a lone {@code %4}) lets them go. Returns the first hit, or {@code null}. */
    public Hit finish() {
        for (DecodingView v : views) {
            if (hit == null && !v.inSync) {
                v.flush();
                if (v.match >= 0) {
                    found(v.match, v.label());
                }
            }
        }
        return hit;
    }

    /** Bytes scanned so far. */
    public long scanned() {
        return scanned;
    }

    private Hit found(int needle, String view) {
        hit = new Hit(findings.get(needle), view);
        return hit;
    }
}
