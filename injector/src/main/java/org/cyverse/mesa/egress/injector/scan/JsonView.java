package org.cyverse.mesa.egress.injector.scan;

import java.nio.charset.StandardCharsets;

/** JSON string escapes (RFC 8259 section 7) decoded to UTF-8, surrogate pairs joined; anything else as is. */
final class JsonView extends DecodingView {
    private final byte[] pending = new byte[6];
    private int held; // bytes of an escape seen so far, from the backslash
    private int highSurrogate = -1;

    JsonView(NeedleAutomaton automaton, boolean joinLines) {
        super(automaton, joinLines);
    }

    @Override
    boolean special(int b) {
        return b == '\\';
    }

    @Override
    boolean mayFollow(int next) {
        return switch (next) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u' -> true;
            default -> false;
        };
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
        if (hex(b) < 0) {
            held--; // not part of this (broken) escape: it may start the next one
            flush();
            take(b);
            return;
        }
        if (held == 6) {
            held = 0;
            codeUnit(Integer.parseInt(new String(pending, 2, 4, StandardCharsets.US_ASCII), 16));
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

    @Override
    boolean idle() {
        return held == 0 && highSurrogate < 0;
    }

    @Override
    void flush() {
        surrogateDone();
        int was = held;
        held = 0;
        for (int i = 0; i < was; i++) {
            emit(pending[i]);
        }
    }

    @Override
    String label() {
        return withJoinedLines("JSON-unescaped");
    }
}
