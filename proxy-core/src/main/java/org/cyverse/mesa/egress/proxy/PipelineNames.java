package org.cyverse.mesa.egress.proxy;

/**
 * Names of the handlers in the proxy's pipelines, in their order; {@link Pipelines} assembles
 * them.
 *
 * <p>Client channel, while it speaks HTTP: {@link #GATE} (connection count, for the connection's
 * whole life), {@link #DECODER} (strict request decoder: every smuggling check), {@link #ENCODER}
 * (response encoder), {@link #LENGTH_HOLD} (a scrubbed body held to send it with its length),
 * {@link #TIMERS} (header and idle timeouts, lingering close), {@link #CLIENT}
 * (admits each request and forwards it, or starts a tunnel).
 *
 * <p>Client channel, once an opaque tunnel is established: {@link #GATE}, {@link #IDLE},
 * {@link #SNI_CHECK} (until the TLS ClientHello has been judged), {@link #RETRY_CHECK} (then,
 * until the server's hello is known not to be a HelloRetryRequest, or the second ClientHello
 * passed), {@link #RELAY}.
 *
 * <p>Client channel of an intercepted CONNECT: {@link #GATE}, {@link #SNI_CHECK} (until the
 * ClientHello has been judged and the leaf certificate found), then {@link #TLS} (server side),
 * {@link #PROTOCOL} (until the handshake's ALPN is known), then for HTTP/1.1 {@link #DECODER},
 * {@link #ENCODER}, {@link #LENGTH_HOLD}, {@link #TIMERS}, {@link #CLIENT}; for HTTP/2
 * {@link #H2_CODEC}, {@link #IDLE}, {@link #H2_STREAMS}, and on each stream's child channel
 * {@link #H2_REQUEST_LINES} (what an HTTP/1.1 request line could not carry), {@link #H2_STREAM_CODEC}
 * (frames to HTTP/1.1 objects and back), {@link #H2_MESSAGES},
 * {@link #LENGTH_HOLD}, {@link #TIMERS}, {@link #CLIENT}.
 *
 * <p>Upstream channel, forwarding: {@link #TLS} (client side, only for intercepted connections),
 * {@link #CODEC} (HTTP client codec), {@link #IDLE}, {@link #UPSTREAM}. Upstream channel,
 * tunnelling: {@link #RETRY_CHECK} (until the server's first handshake message was seen), {@link #RELAY}.
 *
 * <p>Both channels of a WebSocket, once the upstream's {@code 101} was relayed: {@link #GATE}
 * (client only), {@link #TLS} (when intercepted), {@link #WS_ENCODER} (added first, so that frames
 * can be written while the rest is rewired), {@link #WS_DECODER} (masking as each side must,
 * frame size, control frames, close codes), {@link #WS_UTF8} (text is UTF-8), {@link #IDLE}
 * ({@code limits.websocket_idle_timeout}), {@link #WS_RELAY}.
 *
 * <p>Admin channel: {@link #ADMIN_CODEC}, {@link #ADMIN_AGGREGATOR}, {@link #ADMIN}.
 */
public final class PipelineNames {
    public static final String GATE = "connection-gate";
    public static final String DECODER = "request-decoder";
    public static final String ENCODER = "response-encoder";
    public static final String LENGTH_HOLD = "response-length-hold";
    public static final String TIMERS = "client-timers";
    public static final String CLIENT = "client";
    public static final String IDLE = "idle";
    public static final String SNI_CHECK = "sni-check";
    public static final String RETRY_CHECK = "hello-retry-check";
    public static final String RELAY = "relay";
    public static final String CODEC = "http-client-codec";
    public static final String UPSTREAM = "upstream";
    public static final String TLS = "tls";
    public static final String PROTOCOL = "alpn";
    public static final String H2_CODEC = "http2-frame-codec";
    public static final String H2_STREAMS = "http2-streams";
    public static final String H2_REQUEST_LINES = "http2-request-lines";
    public static final String H2_STREAM_CODEC = "http2-stream-codec";
    public static final String H2_MESSAGES = "http2-messages";
    public static final String WS_ENCODER = "websocket-encoder";
    public static final String WS_DECODER = "websocket-decoder";
    public static final String WS_UTF8 = "websocket-utf8";
    public static final String WS_RELAY = "websocket-relay";
    public static final String ADMIN_CODEC = "admin-codec";
    public static final String ADMIN_AGGREGATOR = "admin-aggregator";
    public static final String ADMIN = "admin";

    private PipelineNames() {}
}
