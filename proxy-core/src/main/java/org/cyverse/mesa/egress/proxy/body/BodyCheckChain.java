package org.cyverse.mesa.egress.proxy.body;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.cyverse.mesa.egress.injector.BodyCheck;

/**
 * The credential kinds' {@link BodyCheck}s of one request body, in the order the admission listed
 * them, each with what it last said: every chunk goes through each in turn, the first refusal
 * stops the body, and while any holds (or drops a refused body's rest) the head and the body
 * wait. The chain knows no kind. Confined to the client's event loop.
 */
final class BodyCheckChain implements AutoCloseable {

    private static final byte[] NOTHING = new byte[0];

    private final List<BodyCheck> checks;
    private final BodyCheck.Status[] statuses;

    /** Starts each plan's check; a check that holds the head holds from the start. */
    BodyCheckChain(List<BodyCheck.Plan> plans) {
        this.checks = plans.stream().map(BodyCheck.Plan::start).toList();
        this.statuses = new BodyCheck.Status[checks.size()];
        for (int i = 0; i < statuses.length; i++) {
            statuses[i] = checks.get(i).holdsHead() ? BodyCheck.Status.HOLD : BodyCheck.Status.CONTINUE;
        }
    }

    /** Whether a check holds the head until it decides (it refuses before anything leaves). */
    boolean holdsHead() {
        return checks.stream().anyMatch(BodyCheck::holdsHead);
    }

    /** Whether the body may still be refused at its end, after the head went (a push's pack read for fast-forwards). */
    boolean judgedAtEnd() {
        return checks.stream().anyMatch(BodyCheck::judgedAtEnd);
    }

    /** Whether a check may change the body's length. */
    boolean changesLength() {
        return checks.stream().anyMatch(BodyCheck::changesLength);
    }

    /** Whether the chunks now coming are dropped: a refused body, answered once it has ended. */
    boolean dropping() {
        return any(BodyCheck.Status.DROP);
    }

    /** Whether every check has decided: none holds, none waits, none drops a refused body's rest. */
    boolean decided() {
        return !any(BodyCheck.Status.HOLD) && !any(BodyCheck.Status.DROP) && !waiting();
    }

    /** Whether a check waits for an answer from elsewhere: nothing more is taken or sent until {@link #resume}. */
    boolean waiting() {
        return any(BodyCheck.Status.WAIT);
    }

    /** Completes once every waiting check can go on. */
    CompletableFuture<Void> awaiting() {
        List<CompletableFuture<?>> waits = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            if (statuses[i] == BodyCheck.Status.WAIT) {
                waits.add(checks.get(i).awaiting());
            }
        }
        return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }

    /** Each waiting check once its answer came: the first refusal, else {@code null}. */
    BodyCheck.Refusal resume() {
        for (int i = 0; i < checks.size(); i++) {
            if (statuses[i] == BodyCheck.Status.WAIT) {
                statuses[i] = checks.get(i).resume();
                if (statuses[i] == BodyCheck.Status.REFUSE) {
                    return checks.get(i).refusal();
                }
            }
        }
        return null;
    }

    /** {@code chunk} as the checks rewrite it (consumed when rewritten), else itself. */
    HttpContent rewritten(HttpContent chunk) throws BodyCheck.Refused {
        for (BodyCheck check : checks) {
            chunk = BodyRewriting.rewrite(chunk, check);
        }
        return chunk;
    }

    /** Each check on {@code chunk} (not consumed): the first refusal, else {@code null}. */
    BodyCheck.Refusal inspect(HttpContent chunk) {
        boolean last = chunk instanceof LastHttpContent;
        byte[] bytes = null; // copied once, for the checks reading now
        for (int i = 0; i < checks.size(); i++) {
            BodyCheck check = checks.get(i);
            boolean reads = check.reads();
            if (bytes == null && reads) {
                ByteBuf content = chunk.content();
                bytes = new byte[content.readableBytes()];
                content.getBytes(content.readerIndex(), bytes);
            }
            statuses[i] = check.inspect(reads ? bytes : NOTHING, last);
            if (statuses[i] == BodyCheck.Status.REFUSE) {
                return check.refusal();
            }
        }
        return null;
    }

    private boolean any(BodyCheck.Status status) {
        for (BodyCheck.Status s : statuses) {
            if (s == status) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        checks.forEach(BodyCheck::close);
    }
}
