package org.cyverse.mesa.egress.proxy.exchange;

import org.cyverse.mesa.egress.audit.AuditSink;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;

/**
 * What an {@link Exchange} needs of the proxy it runs in: the snapshot in force (its profile, and
 * the redaction of its record), the metrics it is counted in, and the sink its one audit record
 * goes to. The proxy's {@link org.cyverse.mesa.egress.proxy.connection.ProxyContext} is the one; an exchange knows no more of it.
 */
public interface ExchangeContext {

    /** The snapshot in force now. */
    ProxyState state();

    /** The metrics the exchange is counted in. */
    ProxyMetrics metrics();

    /** Where the exchange's audit record goes. */
    AuditSink audit();
}
