package org.cyverse.mesa.egress.proxy;

/**
 * Names of the handlers in the proxy's pipelines, and their order, one handler per line, first to
 * last (a read goes down the list, a write up it). {@code ->} is a handler, {@code =>} the last
 * one, which carries the exchange; {@code ?} one that is there only in the case it names; a
 * handler marked {@code (until ...)} leaves the pipeline then. {@code agent.AgentPipelines},
 * {@code upstream.UpstreamPipelines}, {@code websocket.WebSocketPipelines} and
 * {@code admin.AdminPipelines} assemble them.
 *
 * <p>Client side (the agent's connection):
 * <pre>{@code
 * HTTP, on the proxy listener:
 *   -> GATE              open connections counted, for the connection's whole life
 *   -> DECODER           strict request decoder: every smuggling check
 *   -> ENCODER           response encoder
 *   -> LENGTH_HOLD       a scrubbed body held to send it with its length
 *   -> TIMERS            header and idle timeouts, lingering close
 *   => CLIENT            admits each request and forwards it, or starts a tunnel
 *
 * an opaque tunnel, once established:
 *   -> GATE
 *   -> IDLE
 *   -> SNI_CHECK         (until the TLS ClientHello has been judged)
 *   -> RETRY_CHECK       (then, until the server's hello is no HelloRetryRequest, or the second ClientHello passed)
 *   => RELAY
 *
 * an intercepted CONNECT:
 *   -> GATE
 *   -> SNI_CHECK         (until the ClientHello has been judged and the leaf certificate found)
 *   -> TLS               server side, in the SNI check's place
 *   -> PROTOCOL          (until the handshake's ALPN is known)
 *   then for HTTP/1.1:
 *   -> DECODER
 *   -> ENCODER
 *   -> LENGTH_HOLD
 *   -> TIMERS
 *   => CLIENT
 *   or for HTTP/2:
 *   -> H2_CODEC
 *   -> IDLE
 *   => H2_STREAMS        one child channel per stream:
 *        -> H2_REQUEST_LINES   what an HTTP/1.1 request line could not carry, refused
 *        -> H2_STREAM_CODEC    frames to HTTP/1.1 objects and back
 *        -> H2_MESSAGES
 *        -> LENGTH_HOLD
 *        -> TIMERS
 *        => CLIENT
 *
 * a WebSocket, once the upstream's 101 was relayed:
 *   -> GATE
 *   -> TLS ?             intercepted
 *   -> WS_ENCODER        added first, so that frames can be written while the rest is rewired
 *   -> WS_DECODER        masking as each side must, frame size, control frames, close codes
 *   -> WS_UTF8           text is UTF-8
 *   -> IDLE              limits.websocket_idle_timeout
 *   => WS_RELAY
 * }</pre>
 *
 * <p>Upstream side (a connection the proxy dialed):
 * <pre>{@code
 * forwarding over HTTP/1.1:
 *   -> TLS ?             client side, intercepted connections only
 *   -> CODEC             HTTP client codec
 *   -> IDLE
 *   => UPSTREAM
 *
 * forwarding over TLS that offers h2 and http/1.1 (tls.http2):
 *   -> TLS
 *   -> PROTOCOL          (until the handshake's ALPN is known)
 *   then for HTTP/1.1: CODEC, IDLE, UPSTREAM as above; or for HTTP/2:
 *   -> H2_CODEC
 *   -> IDLE              closes the connection once no stream was open for limits.idle_timeout
 *   => H2_STREAMS        one child channel per stream:
 *        -> H2_STREAM_CODEC
 *        -> H2_MESSAGES
 *        -> IDLE
 *        => UPSTREAM
 *
 * an opaque tunnel:
 *   -> RETRY_CHECK       (until the server's first handshake message was seen)
 *   => RELAY
 *
 * a WebSocket, once its 101 was relayed:
 *   -> TLS ?             intercepted
 *   -> WS_ENCODER
 *   -> WS_DECODER
 *   -> WS_UTF8
 *   -> IDLE
 *   => WS_RELAY
 * }</pre>
 *
 * <p>Admin side (a connection to the admin listener):
 * <pre>{@code
 *   -> ADMIN_CODEC
 *   -> ADMIN_AGGREGATOR  whole requests of at most 8 KiB
 *   => ADMIN
 * }</pre>
 */
public final class PipelineNames {
    /** Counts the client's connection against {@code limits.max_connections}, for its whole life. */
    public static final String GATE = "connection-gate";
    /** The strict request decoder. */
    public static final String DECODER = "request-decoder";
    /** The response encoder toward the client. */
    public static final String ENCODER = "response-encoder";
    /** Holds a scrubbed response body to send it with its length. */
    public static final String LENGTH_HOLD = "response-length-hold";
    /** The client's header and idle timeouts, and the lingering close. */
    public static final String TIMERS = "client-timers";
    /** The client handler: admits each request. */
    public static final String CLIENT = "client";
    /** An idle watch. */
    public static final String IDLE = "idle";
    /** Judges a tunnel's TLS ClientHello. */
    public static final String SNI_CHECK = "sni-check";
    /** Judges a second ClientHello after a HelloRetryRequest. */
    public static final String RETRY_CHECK = "hello-retry-check";
    /** Relays a tunnel's bytes to the other side. */
    public static final String RELAY = "relay";
    /** The HTTP client codec toward an upstream. */
    public static final String CODEC = "http-client-codec";
    /** Hands the upstream's answers to the exchange using the connection. */
    public static final String UPSTREAM = "upstream";
    /** TLS: server side toward the client, client side toward the upstream. */
    public static final String TLS = "tls";
    /** Chooses the protocol once ALPN is known. */
    public static final String PROTOCOL = "alpn";
    /** Netty's HTTP/2 frame codec. */
    public static final String H2_CODEC = "http2-frame-codec";
    /** The HTTP/2 multiplexer: one child channel per stream. */
    public static final String H2_STREAMS = "http2-streams";
    /** Refuses an HTTP/2 request that an HTTP/1.1 request line could not carry. */
    public static final String H2_REQUEST_LINES = "http2-request-lines";
    /** HTTP/2 frames to HTTP/1.1 objects and back, on a stream. */
    public static final String H2_STREAM_CODEC = "http2-stream-codec";
    /** An HTTP/2 stream's messages as HTTP/1.1 would have them. */
    public static final String H2_MESSAGES = "http2-messages";
    /** WebSocket frames out. */
    public static final String WS_ENCODER = "websocket-encoder";
    /** WebSocket frames in. */
    public static final String WS_DECODER = "websocket-decoder";
    /** Checks that a WebSocket's text is UTF-8. */
    public static final String WS_UTF8 = "websocket-utf8";
    /** Hands a WebSocket's frames to its session. */
    public static final String WS_RELAY = "websocket-relay";
    /** The admin port's HTTP codec. */
    public static final String ADMIN_CODEC = "admin-codec";
    /** Aggregates an admin request. */
    public static final String ADMIN_AGGREGATOR = "admin-aggregator";
    /** The admin handler. */
    public static final String ADMIN = "admin";

    private PipelineNames() {}
}
