/**
 * A WebSocket: the handshake on its way through, both pipelines rewired once the upstream
 * accepted, and the session that scans the agent's messages and scrubs the upstream's.
 */
package org.cyverse.mesa.egress.proxy.websocket;
