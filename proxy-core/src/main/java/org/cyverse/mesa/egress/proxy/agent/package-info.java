/**
 * The agent's side: its pipeline and what each handler does (the strict decoder, the timers, the
 * HTTP/2 codec, the ALPN switch), the handler that admits each request, and what it hands the
 * request to: a forwarded exchange with the upstream connections it keeps, or a CONNECT turned
 * into a tunnel, an interception or a readable refusal.
 */
package org.cyverse.mesa.egress.proxy.agent;
