package org.cyverse.mesa.egress.injector.scan;

import java.util.function.IntConsumer;

/** {@code %XX} decoded (either case of hex), once or twice ({@code %2541} is {@code A}); anything else as is. */
final class PercentView extends DecodingView {
    private final PercentStage first;
    private final PercentStage second;

    PercentView(NeedleAutomaton automaton, boolean joinLines, int times) {
        super(automaton, joinLines);
        this.second = times == 2 ? new PercentStage(this::emit) : null;
        this.first = new PercentStage(second == null ? this::emit : second::take);
    }

    @Override
    boolean special(int b) {
        return b == '%';
    }

    @Override
    void take(int b) {
        first.take(b);
    }

    @Override
    boolean idle() {
        return first.idle() && (second == null || second.idle());
    }

    @Override
    void flush() {
        first.flush();
        if (second != null) {
            second.flush();
        }
    }

    @Override
    String label() {
        return second != null ? "percent-decoded twice" : withJoinedLines("percent-decoded");
    }

    /** One pass of percent-decoding, handing what it decodes to {@code out}. */
    private static final class PercentStage {
        private final IntConsumer out;
        private int held; // 0: none; 1: '%' seen; 2: '%' and one hex digit
        private int high;
        private int highByte;

        PercentStage(IntConsumer out) {
            this.out = out;
        }

        void take(int b) {
            if (held == 0) {
                if (b == '%') {
                    held = 1;
                } else {
                    out.accept(b);
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
                out.accept(high << 4 | digit);
            } else {
                flush();
                take(b);
            }
        }

        boolean idle() {
            return held == 0;
        }

        void flush() {
            int was = held;
            held = 0;
            if (was >= 1) {
                out.accept('%');
            }
            if (was == 2) {
                out.accept(highByte); // as it was sent, in its own letter case
            }
        }
    }
}
