package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;

/** The drain of a stop: every client told, open exchanges given until a deadline, then all closed. */
final class Drain {

    private Drain() {}

    /**
     * Tells every client connection to finish ({@link ProxyContext#DRAIN}: idle keep-alive ones
     * close at once), waits until none is left or {@code deadline} ({@link System#nanoTime()}),
     * then closes what is left.
     *
     * @return whether every connection finished in time
     */
    static boolean connections(ProxyContext context, long deadline) {
        for (Channel client : context.clients) {
            client.pipeline().fireUserEventTriggered(ProxyContext.DRAIN);
        }
        while (!context.clients.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        boolean drained = context.clients.isEmpty();
        context.clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        return drained;
    }
}
