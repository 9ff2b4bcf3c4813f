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
 * pack that follows streams (read on only to tell a fast-forward, {@link PushCheck}). A refused push is answered once the client has sent its whole body,
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

    /**
     * Whether the head and what was held may go: the list passed (the pack may still be checked
     * for fast-forwards as it streams on), or the push was refused and its body has ended.
     */
    boolean decided() {
        PushCheck.Outcome o = check.outcome();
        return o == PushCheck.Outcome.ALLOWED || o == PushCheck.Outcome.CHECKING_PACK || o != PushCheck.Outcome.READING && ended;
    }

    /** Whether the push was refused and the rest of its body is being read and dropped until it ends. */
    boolean dropping() {
        return refused() && !ended;
    }

    /** Frees what the check holds (the body was abandoned). */
    void close() {
        check.close();
    }

    /** Whether the pack is being read for fast-forwards: the push may still be refused at its last chunk. */
    boolean checkingPack() {
        return check.outcome() == PushCheck.Outcome.CHECKING_PACK;
    }

    private boolean refused() {
        return check.outcome() == PushCheck.Outcome.REFUSED || check.outcome() == PushCheck.Outcome.MALFORMED;
    }

    /**
     * Reads {@code chunk} (not consumed) while the list or the pack is being checked; the check
     * once the push is refused and its body has ended, else {@code null}. A push refused at the
     * pack's end (not a fast-forward) is refused before that last chunk leaves.
     */
    PushCheck inspect(HttpContent chunk) {
        boolean last = chunk instanceof LastHttpContent;
        if (refused()) {
            ended |= last;
            return ended ? check : null;
        }
        if (check.outcome() == PushCheck.Outcome.ALLOWED) {
            return null;
        }
        boolean listRead = check.outcome() == PushCheck.Outcome.CHECKING_PACK;
        ByteBuf bytes = chunk.content();
        if (bytes.readableBytes() > 0) {
            byte[] copy = new byte[bytes.readableBytes()];
            bytes.getBytes(bytes.readerIndex(), copy);
            check.feed(copy, 0, copy.length);
        }
        if (last) {
            check.finish();
        }
        ended = last;
        if (!listRead && check.outcome() != PushCheck.Outcome.READING) {
            refsAudit.accept(check.refs());
        }
        return refused() && ended ? check : null; // refused before the end: the rest is dropped first (dropping())
    }
}
