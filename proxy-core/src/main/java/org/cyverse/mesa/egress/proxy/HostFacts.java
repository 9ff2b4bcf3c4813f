package org.cyverse.mesa.egress.proxy;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/** What the proxy reads from the host it runs on, and how it names its threads. */
public final class HostFacts {

    private static final Logger LOG = Logger.getLogger(HostFacts.class.getName());

    private HostFacts() {}

    /** Daemon threads named {@code name-1}, {@code name-2}, ... */
    public static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The host's own interface addresses, which the address guard refuses (the proxy's, and {@code check}'s). */
    public static List<InetAddress> ownAddresses() {
        List<InetAddress> addresses = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                addresses.addAll(Collections.list(ni.getInetAddresses()));
            }
        } catch (SocketException e) {
            LOG.warning("cannot list the host's own addresses: " + e.getMessage());
        }
        return List.copyOf(addresses);
    }
}
