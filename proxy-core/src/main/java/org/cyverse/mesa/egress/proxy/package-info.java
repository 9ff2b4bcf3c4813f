/**
 * The proxy (Netty): what every part of it shares, the snapshot a request is decided against
 * ({@link org.cyverse.mesa.egress.proxy.ProxyState}), the names of the pipelines' handlers in their
 * order ({@link org.cyverse.mesa.egress.proxy.PipelineNames}), the transport, name resolution and
 * the drain of a stop. The packages below hold the parts; {@code server} assembles them.
 */
package org.cyverse.mesa.egress.proxy;
