package org.cyverse.mesa.egress.proxy.connection;

import io.netty.channel.group.ChannelGroup;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.approval.HeldRequests;
import org.cyverse.mesa.egress.proxy.body.HoldBudget;
import org.cyverse.mesa.egress.proxy.body.ResponseLengthHold;
import org.cyverse.mesa.egress.proxy.exchange.ExchangeContext;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;
import org.cyverse.mesa.egress.proxy.upstream.UpstreamDialer;
import org.cyverse.mesa.egress.tls.LeafCertificates;

/** What every connection of one proxy shares. Thread-safe. */
public final class ProxyContext implements ExchangeContext {

    final AtomicReference<ProxyState> state;
    /** This proxy's metrics. */
    public final ProxyMetrics metrics;
    /** Where audit records go. */
    public final AuditSink audit;
    /** Resolves, vets and dials upstreams. */
    public final UpstreamDialer dialer;
    /** Every open client connection, for the drain and the kill switch. */
    public final ChannelGroup clients;
    /** Leaf certificates for intercepted connections, or {@code null} when {@code tls.intercept: none}. */
    public final LeafCertificates leaves;
    final AtomicInteger connections = new AtomicInteger();
    /** Request body bytes held for scanning, across connections. */
    public final HoldBudget holdBudget = new HoldBudget();
    /** Scrubbed response bodies held for their length ({@link ResponseLengthHold}): a budget of their own, so downloads never starve uploads' scans. */
    public final HoldBudget responseHoldBudget = new HoldBudget();
    /** Requests waiting for an approval's decision ({@code approvals.hold}). */
    public final HeldRequests held;
    /** Set once a stop began: connections finish what they do and close. */
    public volatile boolean draining;

    /** The context of one proxy; the server makes it once. */
    public ProxyContext(AtomicReference<ProxyState> state, ProxyMetrics metrics, AuditSink audit, UpstreamDialer dialer,
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
