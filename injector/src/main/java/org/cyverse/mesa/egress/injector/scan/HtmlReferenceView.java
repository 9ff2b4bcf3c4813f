package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;

/**
 * HTML character references (the HTML standard's "character reference state"): decimal
 * {@code &#65;} and hexadecimal {@code &#x41;}, with or without the semicolon a browser also
 * does without, and the named references a value's characters can need ({@code &amp;},
 * {@code &lt;}, {@code &gt;}, {@code &quot;}, {@code &apos;}), decoded to UTF-8; anything else
 * as is. A reference longer than any code point is let go as sent.
 */
final class HtmlReferenceView extends DecodingView {
    /** The longest reference kept: {@code &#x10FFFF;} or {@code &#1114111;}. */
    private static final int LONGEST = 10;

    private final byte[] pending = new byte[LONGEST];
    private int held; // bytes of a reference seen so far, from the ampersand
    private int radix; // 0: not numeric (yet); 10 or 16
    private int value;
    private int digits;

    HtmlReferenceView(NeedleAutomaton automaton) {
        super(automaton, false);
    }

    @Override
    boolean special(int b) {
        return b == '&';
    }

    @Override
    boolean mayFollow(int next) {
        return next == '#' || startsName(pending, 1, next);
    }

    @Override
    void take(int b) {
        if (held == 0) {
            if (b == '&') {
                start(b);
            } else {
                emit(b);
            }
            return;
        }
        if (held == 1) {
            if (b == '#' || startsName(pending, held, b)) {
                pending[held++] = (byte) b;
            } else {
                flushThenTake(b);
            }
            return;
        }
        if (pending[1] == '#') {
            numeric(b);
        } else {
            named(b);
        }
    }

    private void start(int b) {
        pending[0] = (byte) b;
        held = 1;
        radix = 0;
        value = 0;
        digits = 0;
    }

    private void numeric(int b) {
        if (held == 2 && radix == 0 && (b == 'x' || b == 'X')) {
            radix = 16;
            pending[held++] = (byte) b;
            return;
        }
        int base = radix == 0 ? 10 : radix;
        int digit = base == 16 ? hex(b) : b >= '0' && b <= '9' ? b - '0' : -1;
        if (digit >= 0 && held < LONGEST) {
            radix = base;
            value = value * base + digit;
            digits++;
            pending[held++] = (byte) b;
            if (value > Character.MAX_CODE_POINT) {
                flush();
            }
            return;
        }
        if (digits == 0) {
            flushThenTake(b);
            return;
        }
        int cp = value;
        held = 0;
        utf8(cp);
        if (b != ';') {
            take(b); // a reference without its semicolon ends at the first byte that is not a digit
        }
    }

    private void named(int b) {
        if (b == ';') {
            int cp = entity();
            if (cp >= 0) {
                held = 0;
                emit(cp);
            } else {
                flushThenTake(b);
            }
        } else if (held < LONGEST && startsName(pending, held, b)) {
            pending[held++] = (byte) b;
        } else {
            flushThenTake(b);
        }
    }

    /** The character a named reference held in {@code pending} stands for, or -1. */
    private int entity() {
        return switch (new String(pending, 1, held - 1, StandardCharsets.US_ASCII)) {
            case "amp", "AMP" -> '&';
            case "lt", "LT" -> '<';
            case "gt", "GT" -> '>';
            case "quot", "QUOT" -> '"';
            case "apos" -> '\'';
            default -> -1;
        };
    }

    /** The named references decoded; a name no known one begins with is let go at its first letter that differs. */
    private static final String[] NAMES = {"amp", "AMP", "lt", "LT", "gt", "GT", "quot", "QUOT", "apos"};

    /** Whether the name held ({@code pending[1..held)}) followed by {@code b} begins one of {@link #NAMES}. */
    private static boolean startsName(byte[] pending, int held, int b) {
        for (String name : NAMES) {
            if (name.length() >= held && name.charAt(held - 1) == b && prefixOf(name, pending, held)) {
                return true;
            }
        }
        return false;
    }

    private static boolean prefixOf(String name, byte[] pending, int held) {
        for (int i = 1; i < held; i++) {
            if (name.charAt(i - 1) != pending[i]) {
                return false;
            }
        }
        return true;
    }

    private void flushThenTake(int b) {
        flush();
        take(b);
    }

    @Override
    boolean idle() {
        return held == 0;
    }

    @Override
    void flush() {
        int was = held;
        held = 0;
        for (int i = 0; i < was; i++) {
            emit(pending[i]);
        }
    }

    @Override
    String label() {
        return "HTML references decoded";
    }
}
