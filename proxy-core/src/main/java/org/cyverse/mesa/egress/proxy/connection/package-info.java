/**
 * What every client connection of one proxy shares: the context, the gate that counts
 * connections, and the one way a refusal is answered.
 */
package org.cyverse.mesa.egress.proxy.connection;
