package org.cyverse.mesa.egress.proxy;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import java.util.concurrent.TimeUnit;

/** The drain of a stop: every client told, open exchanges given until a deadline, then all closed. */
public final class Drain {

    /** Fired on every client channel when the proxy starts draining. */
    public static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };

    private Drain() {}

    /**
     * Tells every client connection to finish ({@link #DRAIN}: idle keep-alive ones
     * close at once), waits until none is left or {@code deadline} ({@link System#nanoTime()}),
     * then closes what is left.
     *
     * @return whether every connection finished in time
     */
    public static boolean connections(ChannelGroup clients, long deadline) {
        for (Channel client : clients) {
            client.pipeline().fireUserEventTriggered(DRAIN);
        }
        while (!clients.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        boolean drained = clients.isEmpty();
        clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        return drained;
    }
}
