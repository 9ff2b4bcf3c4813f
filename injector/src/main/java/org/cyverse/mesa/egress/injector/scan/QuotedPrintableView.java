package org.cyverse.mesa.egress.injector.scan;

/**
 * Quoted-printable (RFC 2045 section 6.7): {@code =XX} (either case of hex) is one byte, and a
 * soft line break ({@code =} then CR LF, or a bare LF) is nothing, so a value a MIME part
 * wrapped at 76 characters reads whole; anything else as is.
 */
final class QuotedPrintableView extends DecodingView {
    private int held; // 0: none; 1: '=' seen; 2: '=' and one hex digit; 3: '=' CR
    private int high;
    private int highByte;

    QuotedPrintableView(NeedleAutomaton automaton) {
        super(automaton, false);
    }

    @Override
    boolean special(int b) {
        return b == '=';
    }

    @Override
    boolean mayFollow(int next) {
        return hex(next) >= 0 || next == '\r' || next == '\n';
    }

    @Override
    void take(int b) {
        switch (held) {
            case 0 -> {
                if (b == '=') {
                    held = 1;
                } else {
                    emit(b);
                }
            }
            case 1 -> {
                int digit = hex(b);
                if (digit >= 0) {
                    high = digit;
                    highByte = b;
                    held = 2;
                } else if (b == '\r') {
                    held = 3;
                } else if (b == '\n') {
                    held = 0; // a soft line break written with a bare LF
                } else {
                    flush();
                    take(b);
                }
            }
            case 2 -> {
                int digit = hex(b);
                if (digit >= 0) {
                    held = 0;
                    emit(high << 4 | digit);
                } else {
                    flush();
                    take(b);
                }
            }
            default -> {
                if (b == '\n') {
                    held = 0; // =CRLF: a soft line break
                } else {
                    flush();
                    take(b);
                }
            }
        }
    }

    @Override
    boolean idle() {
        return held == 0;
    }

    @Override
    void flush() {
        int was = held;
        held = 0;
        if (was >= 1) {
            emit('=');
        }
        if (was == 2) {
            emit(highByte);
        } else if (was == 3) {
            emit('\r');
        }
    }

    @Override
    String label() {
        return "quoted-printable decoded";
    }
}
