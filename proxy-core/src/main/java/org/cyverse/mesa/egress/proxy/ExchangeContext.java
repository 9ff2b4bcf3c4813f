package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.audit.AuditSink;

/**
 * What an {@link Exchange} needs of the proxy it runs in: the snapshot in force (its profile, and
 * the redaction of its record), the metrics it is counted in, and the sink its one audit record
 * goes to. The proxy's {@link ProxyContext} is the one; an exchange knows no more of it.
 */
interface ExchangeContext {

    /** The snapshot in force now. */
    ProxyState state();

    /** The metrics the exchange is counted in. */
    ProxyMetrics metrics();

    /** Where the exchange's audit record goes. */
    AuditSink audit();
}
