package org.cyverse.mesa.egress.injector.scan;

/** CR and LF dropped: a value wrapped over lines reads whole. */
final class JoinedLinesView extends DecodingView {
    JoinedLinesView(NeedleAutomaton automaton) {
        super(automaton, false);
    }

    @Override
    boolean special(int b) {
        return b == '\r' || b == '\n';
    }

    @Override
    boolean mayFollow(int next) {
        return true;
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
