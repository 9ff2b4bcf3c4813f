package org.cyverse.mesa.egress.proxy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves a DNS name to its addresses. Blocking; the proxy calls it off the event loops, once per
 * destination (the vetted address is dialed, never looked up again).
 */
@FunctionalInterface
public interface HostResolver {

    /** The system resolver (the JDK's, which honours /etc/hosts and the JVM's DNS cache). */
    HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    List<InetAddress> resolve(String host) throws UnknownHostException;
}
