package org.cyverse.mesa.egress.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;
import java.util.function.Consumer;
import org.cyverse.mesa.egress.injector.github.PushCheck;

/**
 * The branch rule on a {@code git-receive-pack} body, in the gate: the body is held (with the
 * request head) until its command list has been read and judged, so that a refused push sends
 * nothing upstream, not even the head. Only the command list is copied out of the chunks; the
 * pack that follows streams. A refused push is answered once the client has sent its whole body,
 * which is read and dropped meanwhile: git's HTTP client (curl) that gets an answer while it is
 * still sending would send the request again on a new connection, and git would then print an
 * error about that second try instead of the refusal. Confined to the client's event loop.
 */
final class PushGate {

    private final PushCheck check;
    /** Where the refs of a push that may go are recorded (the exchange's audit record). */
    private final Consumer<List<String>> refsAudit;
    private boolean ended;

    PushGate(PushCheck.Plan plan, Consumer<List<String>> refsAudit) {
        this.check = plan.start();
        this.refsAudit = refsAudit;
    }

    /** Whether the command list has been judged (the head and what was held may go, or the push is refused). */
    boolean decided() {
        return check.outcome() == PushCheck.Outcome.ALLOWED || check.outcome() != PushCheck.Outcome.READING && ended;
    }

    /** Whether the push was refused and the rest of its body is being read and dropped until it ends. */
    boolean dropping() {
        return check.outcome() != PushCheck.Outcome.READING && check.outcome() != PushCheck.Outcome.ALLOWED && !ended;
    }

    /** Reads {@code chunk} (not consumed) while the list is being read; the check when it refuses the push, else {@code null}. */
    PushCheck inspect(HttpContent chunk) {
        if (dropping()) {
            ended = chunk instanceof LastHttpContent;
            return ended ? check : null;
        }
        if (decided()) {
            return null;
        }
        ByteBuf bytes = chunk.content();
        int n = bytes.readableBytes();
        if (n > 0) {
            byte[] copy = new byte[Math.min(n, org.cyverse.mesa.egress.injector.github.ReceivePackCommands.MAX_BYTES + 4)];
            bytes.getBytes(bytes.readerIndex(), copy);
            check.feed(copy, 0, copy.length);
        }
        if (chunk instanceof LastHttpContent) {
            check.finish();
        }
        if (check.outcome() == PushCheck.Outcome.ALLOWED) {
            refsAudit.accept(check.refs());
            return null;
        }
        if (check.outcome() == PushCheck.Outcome.READING) {
            return null;
        }
        refsAudit.accept(check.refs());
        ended = chunk instanceof LastHttpContent;
        return ended ? check : null; // else the rest of the body is dropped first (dropping())
    }
}
