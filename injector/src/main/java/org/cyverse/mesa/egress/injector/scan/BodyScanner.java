package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Scans one body as it streams for the needles of a {@link ScanPlan}, in six views of the bytes
 * at once: as sent, percent-decoded ({@code %41} is {@code A}: form posts, URLs inside JSON),
 * JSON-unescaped ({@code \u0041}, {@code \/}: a value inside a JSON string), with line breaks
 * removed (MIME base64 wrapped at 76 characters, a PEM block), and the percent-decoded and
 * JSON-unescaped views with their decoded line breaks removed too (wrapped base64 in a form field
 * or a JSON string). A needle split across chunks is
 * found as if the body had come whole. Not thread-safe: one per body.
 *
 * <p>Cost: a view follows the raw stream without work of its own while the bytes read the same in
 * it (no {@code %}, backslash or line break); at such a byte it steps its own state until it has
 * caught up with the raw one (the automaton's state depends only on the last few bytes, so two
 * views that agree on a state agree from then on).
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

    /** The bytes that may read differently in some view. */
    private static final boolean[] SPECIAL = new boolean[256];

    static {
        for (char c : new char[] {'%', '\\', '\r', '\n'}) {
            SPECIAL[c] = true;
        }
    }

    private final NeedleAutomaton automaton;
    private final List<Finding> findings;
    private final View[] views;
    private int raw;
    /** How many views read differently from the raw bytes now. */
    private int desynced;
    private Hit hit;
    private long scanned;

    BodyScanner(NeedleAutomaton automaton, List<Finding> findings) {
        this.automaton = automaton;
        this.findings = findings;
        this.views = automaton == null ? new View[0]
                : new View[] {new PercentView(false), new JsonView(false), new JoinedLinesView(), new PercentView(true), new JsonView(true)};
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
            if (before == 0 && !SPECIAL[b] && automaton.staysAtRoot(b) && desynced == 0) {
                continue; // the common case: a byte that starts no needle, in every view at once
            }
            raw = automaton.next(before, b);
            if (automaton.match(raw) >= 0) {
                return found(automaton.match(raw), "");
            }
            if (desynced == 0 && !SPECIAL[b]) {
                continue; // every view reads this byte as the raw stream does, in the same state
            }
            for (View v : views) {
                if (v.inSync && !v.special(b)) {
                    continue;
                }
                if (v.inSync) {
                    v.state = before;
                    v.inSync = false;
                    desynced++;
                }
                v.take(b);
                if (hit != null) {
                    return hit;
                }
                if (v.idle() && v.state == raw) {
                    v.inSync = true;
                    desynced--;
                }
            }
        }
        return null;
    }

    /** Ends the body: a view that still holds bytes (a lone {@code %4}) lets them go. Returns the first hit, or {@code null}. */
    public Hit finish() {
        for (View v : views) {
            if (hit == null && !v.inSync) {
                v.flush();
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

    /** A decoded view of the body with its own automaton state while it reads differently from the raw bytes. */
    private abstract class View {
        int state;
        boolean inSync = true;

        /** Whether byte {@code b} may read differently in this view. */
        abstract boolean special(int b);

        /** Takes one raw byte; emits what it decodes to through {@link #emit}. */
        abstract void take(int b);

        /** Whether no raw bytes are held back undecided. */
        abstract boolean idle();

        /** Emits held bytes as they are (the body ended). */
        abstract void flush();

        abstract String label();

        /** Whether decoded CR and LF are dropped too (base64 wrapped in lines inside a JSON string or a form field). */
        boolean joinLines;

        final void emit(int b) {
            if (hit != null || joinLines && (b == '\r' || b == '\n')) {
                return;
            }
            state = automaton.next(state, b & 0xff);
            int m = automaton.match(state);
            if (m >= 0) {
                found(m, label());
            }
        }
    }

    /** {@code %XX} decoded (either case of hex); anything else as is. */
    private final class PercentView extends View {
        private int held; // 0: none; 1: '%' seen; 2: '%' and one hex digit
        private int high;
        private int highByte;

        PercentView(boolean joinLines) {
            this.joinLines = joinLines;
        }

        @Override
        boolean special(int b) {
            return b == '%';
        }

        @Override
        void take(int b) {
            if (held == 0) {
                if (b == '%') {
                    held = 1;
                } else {
                    emit(b);
                }
                return;
            }
            int digit = Character.digit(b, 16);
            if (held == 1 && digit >= 0) {
                high = digit;
                highByte = b;
                held = 2;
            } else if (held == 2 && digit >= 0) {
                held = 0;
                emit(high << 4 | digit);
            } else {
                flush();
                take(b);
            }
        }

        @Override
        boolean idle() {
            return held == 0;
        }

        @Override
        void flush() {
            if (held >= 1) {
                emit('%');
            }
            if (held == 2) {
                emit(highByte); // as it was sent, in its own letter case
            }
            held = 0;
        }

        @Override
        String label() {
            return joinLines ? "percent-decoded, line breaks removed" : "percent-decoded";
        }
    }

    /** JSON string escapes (RFC 8259 section 7) decoded to UTF-8, surrogate pairs joined; anything else as is. */
    private final class JsonView extends View {
        private final byte[] pending = new byte[6];
        private int held; // bytes of an escape seen so far, from the backslash
        private int highSurrogate = -1;

        JsonView(boolean joinLines) {
            this.joinLines = joinLines;
        }

        @Override
        boolean special(int b) {
            return b == '\\';
        }

        @Override
        void take(int b) {
            if (held == 0) {
                if (b == '\\') {
                    pending[held++] = (byte) b;
                } else {
                    surrogateDone();
                    emit(b);
                }
                return;
            }
            pending[held++] = (byte) b;
            if (held == 2) {
                int simple = switch (b) {
                    case '"', '\\', '/' -> b;
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'u' -> -1;
                    default -> -2;
                };
                if (simple >= 0) {
                    held = 0;
                    surrogateDone();
                    emit(simple);
                } else if (simple == -2) {
                    flush();
                }
                return;
            }
            if (Character.digit(b, 16) < 0) {
                held--; // not part of this (broken) escape: it may start the next one
                flush();
                take(b);
                return;
            }
            if (held == 6) {
                held = 0;
                int unit = Integer.parseInt(new String(pending, 2, 4, StandardCharsets.US_ASCII), 16);
                codeUnit(unit);
            }
        }

        private void codeUnit(int unit) {
            if (Character.isHighSurrogate((char) unit)) {
                surrogateDone();
                highSurrogate = unit;
            } else if (Character.isLowSurrogate((char) unit) && highSurrogate >= 0) {
                int cp = Character.toCodePoint((char) highSurrogate, (char) unit);
                highSurrogate = -1;
                utf8(cp);
            } else {
                surrogateDone();
                utf8(unit);
            }
        }

        /** A high surrogate not followed by a low one is emitted as it would be encoded alone. */
        private void surrogateDone() {
            if (highSurrogate >= 0) {
                int unit = highSurrogate;
                highSurrogate = -1;
                utf8(unit);
            }
        }

        private void utf8(int cp) {
            if (cp < 0x80) {
                emit(cp);
            } else if (cp < 0x800) {
                emit(0xc0 | cp >> 6);
                emit(0x80 | cp & 0x3f);
            } else if (cp < 0x10000) {
                emit(0xe0 | cp >> 12);
                emit(0x80 | cp >> 6 & 0x3f);
                emit(0x80 | cp & 0x3f);
            } else {
                emit(0xf0 | cp >> 18);
                emit(0x80 | cp >> 12 & 0x3f);
                emit(0x80 | cp >> 6 & 0x3f);
                emit(0x80 | cp & 0x3f);
            }
        }

        @Override
        boolean idle() {
            return held == 0 && highSurrogate < 0;
        }

        @Override
        void flush() {
            surrogateDone();
            for (int i = 0; i < held; i++) {
                emit(pending[i]);
            }
            held = 0;
        }

        @Override
        String label() {
            return joinLines ? "JSON-unescaped, line breaks removed" : "JSON-unescaped";
        }
    }

    /** CR and LF dropped: a value wrapped over lines reads whole. */
    private final class JoinedLinesView extends View {
        @Override
        boolean special(int b) {
            return b == '\r' || b == '\n';
        }

        @Override
        void take(int b) {
            if (!special(b)) {
                emit(b);
            }
        }

        @Override
        boolean idle() {
            return true;
        }

        @Override
        void flush() {}

        @Override
        String label() {
            return "line breaks removed";
        }
    }
}
