package org.cyverse.mesa.egress.injector.scan;

import java.util.Arrays;

/**
 * One decoded view of a body for {@link BodyScanner}: it undoes one encoding byte by byte and runs
 * the needle automaton over what it decodes, with a state of its own while it reads differently
 * from the raw bytes. Each view holds back at most a few bytes (an escape not yet complete) and,
 * when what it holds turns out not to be an escape, lets them go as they were sent.
 */
abstract sealed class DecodingView permits PercentView, JsonView, JoinedLinesView, QuotedPrintableView, HtmlReferenceView {

    /** Each byte's value as a hex digit (either case), or -1. */
    private static final int[] HEX = new int[256];

    static {
        Arrays.fill(HEX, -1);
        for (int i = 0; i < 16; i++) {
            HEX[Character.forDigit(i, 16)] = i;
            HEX[Character.toUpperCase(Character.forDigit(i, 16))] = i;
        }
    }

    private final NeedleAutomaton automaton;
    /** Whether decoded CR and LF are dropped too (base64 wrapped in lines inside a JSON string or a form field). */
    private final boolean joinLines;
    /** The automaton's state after what this view decoded so far. */
    int state;
    /** Whether this view reads the same as the raw bytes now (and so is not stepped). */
    boolean inSync = true;
    /** The needle this view found, or -1. */
    int match = -1;

    DecodingView(NeedleAutomaton automaton, boolean joinLines) {
        this.automaton = automaton;
        this.joinLines = joinLines;
    }

    /** Whether byte {@code b} may read differently in this view. */
    abstract boolean special(int b);

    /**
     * Whether byte {@code next}, right after one of this view's special bytes, may make it read
     * differently: when not, the special byte reads as itself and the view need not be stepped.
     */
    abstract boolean mayFollow(int next);

    /** Takes one raw byte; emits what it decodes to through {@link #emit}. */
    abstract void take(int b);

    /** Whether no raw bytes are held back undecided. */
    abstract boolean idle();

    /** Emits held bytes as they were sent (the body ended, or they were not an escape). */
    abstract void flush();

    /** The view's name in a refusal's detail. */
    abstract String label();

    final void emit(int b) {
        if (match >= 0 || joinLines && (b == '\r' || b == '\n')) {
            return;
        }
        state = automaton.next(state, b & 0xff);
        match = automaton.match(state);
    }

    /** Byte {@code b}'s value as a hex digit (either case), or -1. */
    static int hex(int b) {
        return HEX[b & 0xff];
    }

    /** {@code label}, and that line breaks are removed where they are. */
    final String withJoinedLines(String label) {
        return joinLines ? label + ", line breaks removed" : label;
    }

    /** Emits code point {@code cp} in UTF-8 (a lone surrogate as it would be encoded alone). */
    final void utf8(int cp) {
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
}
