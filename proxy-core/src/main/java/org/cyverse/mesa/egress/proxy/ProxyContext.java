package org.cyverse.mesa.egress.proxy;

import io.netty.channel.group.ChannelGroup;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.tls.LeafCertificates;

/** What every connection of one proxy shares. Thread-safe. */
final class ProxyContext implements ExchangeContext {

    final AtomicReference<ProxyState> state;
    final ProxyMetrics metrics;
    final AuditSink audit;
    final UpstreamDialer dialer;
    final ChannelGroup clients;
    /** Leaf certificates for intercepted connections, or {@code null} when {@code tls.intercept: none}. */
    final LeafCertificates leaves;
    final AtomicInteger connections = new AtomicInteger();
    /** Request body bytes held for scanning, across connections. */
    final HoldBudget holdBudget = new HoldBudget();
    /** Scrubbed response bodies held for their length ({@link ResponseLengthHold}): a budget of their own, so downloads never starve uploads' scans. */
    final HoldBudget responseHoldBudget = new HoldBudget();
    /** Requests waiting for an approval's decision ({@code approvals.hold}). */
    final HeldRequests held;
    volatile boolean draining;

    ProxyContext(AtomicReference<ProxyState> state, ProxyMetrics metrics, AuditSink audit, UpstreamDialer dialer,
            ChannelGroup clients, LeafCertificates leaves, HeldRequests held) {
        this.held = held;
        this.state = state;
        this.metrics = metrics;
        this.audit = audit;
        this.dialer = dialer;
        this.clients = clients;
        this.leaves = leaves;
    }

    @Override
    public ProxyState state() {
        return state.get();
    }

    @Override
    public ProxyMetrics metrics() {
        return metrics;
    }

    @Override
    public AuditSink audit() {
        return audit;
    }
}
