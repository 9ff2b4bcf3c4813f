package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.HttpContent;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The chunks of a streamed request body kept while a body check waits for an answer from
 * elsewhere (a push's last bytes while GitHub is asked whether it is a fast-forward): one read
 * may bring several, kept in order. The answer is taken up once on the client's event loop,
 * however many chunks came meanwhile. Owns the chunks until they are polled; confined to that loop.
 */
final class WaitingChunks {

    private final ArrayDeque<HttpContent> chunks = new ArrayDeque<>();
    private final EventExecutor loop;
    private boolean awaiting;

    WaitingChunks(EventExecutor loop) {
        this.loop = loop;
    }

    /** Keeps {@code chunk} (consumed) until it is polled or released. */
    void park(HttpContent chunk) {
        chunks.add(chunk);
    }

    /** Runs {@code answered} on the loop once {@code answer} completes; nothing more while that is pending. */
    void await(CompletableFuture<?> answer, Runnable answered) {
        if (!awaiting) {
            awaiting = true;
            answer.whenComplete((v, e) -> loop.execute(() -> {
                awaiting = false;
                answered.run();
            }));
        }
    }

    /** The oldest chunk kept (the caller owns it), or {@code null}. */
    HttpContent poll() {
        return chunks.poll();
    }

    /** Frees every chunk kept (the body was refused or abandoned). */
    void release() {
        chunks.forEach(HttpContent::release);
        chunks.clear();
    }
}
