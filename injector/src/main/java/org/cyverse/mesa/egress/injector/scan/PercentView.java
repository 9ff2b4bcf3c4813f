package org.cyverse.mesa.egress.injector.scan;

/**
 * {@code %XX} decoded (either case of hex), once or twice ({@code %2541} is {@code A}); anything
 * else as is. Decoding twice is two passes in a row, each with its own held bytes: what the first
 * decodes is what the second reads.
 */
final class PercentView extends DecodingView {

    private final boolean twice;
    /** Per pass (0: the first, 1: the second): 0 nothing held; 1 a '%' held; 2 a '%' and one hex digit held. */
    private final int[] held = new int[2];
    private final int[] heldDigit = new int[2];

    PercentView(NeedleAutomaton automaton, boolean joinLines, int times) {
        super(automaton, joinLines);
        this.twice = times == 2;
    }

    @Override
    boolean special(int b) {
        return b == '%';
    }

    /** A hex digit; decoding twice, a second {@code %} too ({@code %%41}: the first pass makes {@code %A...}). */
    @Override
    boolean mayFollow(int next) {
        return hex(next) >= 0 || twice && next == '%';
    }

    @Override
    void take(int b) {
        pass(0, b);
    }

    /** Pass {@code p} reads byte {@code b}. */
    private void pass(int p, int b) {
        if (held[p] == 0) {
            if (b == '%') {
                held[p] = 1;
            } else {
                out(p, b);
            }
            return;
        }
        int digit = hex(b);
        if (digit < 0) {
            let(p);
            pass(p, b);
        } else if (held[p] == 1) {
            heldDigit[p] = b;
            held[p] = 2;
        } else {
            held[p] = 0;
            out(p, hex(heldDigit[p]) << 4 | digit);
        }
    }

    /** What pass {@code p} decoded goes to the next pass, or to the automaton. */
    private void out(int p, int b) {
        if (p == 0 && twice) {
            pass(1, b);
        } else {
            emit(b);
        }
    }

    /** Pass {@code p} lets what it held go as it was read ({@code %}, and a digit in its own letter case). */
    private void let(int p) {
        int was = held[p];
        held[p] = 0;
        if (was >= 1) {
            out(p, '%');
        }
        if (was == 2) {
            out(p, heldDigit[p]);
        }
    }

    @Override
    boolean idle() {
        return held[0] == 0 && held[1] == 0;
    }

    @Override
    void flush() {
        let(0);
        let(1);
    }

    @Override
    String label() {
        return twice ? "percent-decoded twice" : withJoinedLines("percent-decoded");
    }
}
