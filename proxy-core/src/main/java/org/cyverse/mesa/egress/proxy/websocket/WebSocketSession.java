package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.audit.AuditRecord;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.connection.ProxyContext;
import org.cyverse.mesa.egress.proxy.exchange.Exchange;

/**
 * One WebSocket connection after its {@code 101}: the two channels, the messages each way, the
 * close handshake, and the one audit record it ends with (SPEC.md "Protocols": per connection,
 * with message counts). The agent's messages are held whole and scanned before they leave
 * ({@link WebSocketOutbound}); the upstream's are scrubbed of echoed secrets frame by frame
 * ({@link WebSocketInbound}). A finding, a message over {@code limits.websocket_max_message_bytes},
 * a protocol error or a quiet connection ends it from the proxy's side: the agent gets a close
 * frame that says why, the upstream a {@code 1001}. Confined to the client channel's event loop
 * (the upstream channel is registered on the same loop).
 */
final class WebSocketSession implements WebSocketOwner {

    private static final Logger LOG = Logger.getLogger(WebSocketSession.class.getName());
    /** How long a close frame waits for the other side's before both connections are closed anyway. */
    static final long CLOSE_WAIT_MILLIS = 5_000;

    private final ProxyContext proxy;
    private final ProxyState state;
    private final Exchange exchange;
    private final Destination destination;
    final Channel client;
    final Channel upstream;
    private final WebSocketOutbound fromClient;
    private final WebSocketInbound fromUpstream;
    private long messagesUp;
    private long messagesDown;
    private int closeCode = -1;
    private Side closedBy;
    /** Whether a close frame has been seen from, and sent to, each side. */
    private boolean closeFromClient, closeFromUpstream, closeToClient, closeToUpstream;
    private boolean ending;
    private boolean finished;
    private Refusal refusal;
    private ScheduledFuture<?> closeWait;

    WebSocketSession(ProxyContext proxy, ProxyState state, Exchange exchange, Destination destination, Channel client, Channel upstream,
            WebSocketOutbound.Plan plan, EchoScrubber echo) {
        this.proxy = proxy;
        this.state = state;
        this.exchange = exchange;
        this.destination = destination;
        this.client = client;
        this.upstream = upstream;
        this.fromClient = new WebSocketOutbound(this, plan, proxy.holdBudget, state.config().limits().scanHoldTotalBytes());
        this.fromUpstream = new WebSocketInbound(this, echo);
    }

    /** Both pipelines speak WebSocket: read each side. */
    void start() {
        client.read();
        upstream.read();
    }

    /** A frame from {@code side}; the frame is this session's to release. */
    void frame(Side side, WebSocketFrame frame) {
        if (ending) {
            frame.release();
            return;
        }
        if (frame instanceof CloseWebSocketFrame close) {
            closed(side, close);
        } else if (side == Side.CLIENT) {
            fromClient.frame(frame);
        } else {
            fromUpstream.frame(frame);
        }
    }

    @Override
    public void relay(Side from, List<WebSocketFrame> frames) {
        Channel to = from == Side.CLIENT ? upstream : client;
        Channel source = from == Side.CLIENT ? client : upstream;
        for (int i = 0; i < frames.size(); i++) {
            WebSocketFrame f = frames.get(i);
            if (from == Side.CLIENT) {
                exchange.up(f.content().readableBytes());
            } else {
                exchange.down(f.content().readableBytes());
            }
            boolean last = i == frames.size() - 1;
            if (!last) {
                to.write(f);
                continue;
            }
            to.writeAndFlush(f).addListener(written -> {
                if (!written.isSuccess()) {
                    gone(from == Side.CLIENT ? Side.UPSTREAM : Side.CLIENT);
                } else if (!ending) {
                    source.read();
                }
            });
        }
    }

    @Override
    public void readMore(Side side) {
        (side == Side.CLIENT ? client : upstream).read();
    }

    @Override
    public void messageRelayed(Side from) {
        if (from == Side.CLIENT) {
            messagesUp++;
        } else {
            messagesDown++;
        }
    }

    /** A close frame from {@code side}: relayed to the other side; once both have closed, both connections end. */
    private void closed(Side side, CloseWebSocketFrame close) {
        if (closedBy == null) {
            closedBy = side;
            closeCode = close.statusCode() < 0 ? WebSocketCloseStatus.EMPTY.code() : close.statusCode();
        }
        if (side == Side.CLIENT) {
            closeFromClient = true;
            fromClient.abandon();
            if (!fromClient.cleanClose(close)) {
                return; // the close reason itself carried a finding: the session was ended for it
            }
        } else {
            closeFromUpstream = true;
            fromUpstream.abandon();
            close = fromUpstream.scrubbedClose(close);
        }
        boolean toUpstream = side == Side.CLIENT;
        if (toUpstream ? closeToUpstream : closeToClient) {
            close.release(); // this side answers a close the proxy sent it
        } else {
            if (toUpstream) {
                closeToUpstream = true;
            } else {
                closeToClient = true;
            }
            (toUpstream ? upstream : client).writeAndFlush(close);
        }
        if (closeFromClient && closeFromUpstream) {
            end();
        } else if (closeWait == null) {
            closeWait = client.eventLoop().schedule(() -> end(), CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            (side == Side.CLIENT ? client : upstream).read(); // for the TCP close that follows
            (side == Side.CLIENT ? upstream : client).read(); // for the answering close frame
        }
    }

    /** {@code side}'s connection closed (or failed to take a write). */
    void gone(Side side) {
        if (finished) {
            return;
        }
        if (closedBy == null) {
            closedBy = side;
            closeCode = WebSocketCloseStatus.ABNORMAL_CLOSURE.code(); // RFC 6455 section 7.1.5: closed without a close frame
        }
        String why = side == Side.CLIENT ? "the client went away" : "the upstream went away";
        shutDown(WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, why, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, why);
    }

    /** The idle timeout passed with nothing relayed either way. */
    void idle() {
        end(null, Side.PROXY, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "idle for limits.websocket_idle_timeout");
    }

    /** A decoder or validator on {@code side} refused a frame (it has sent its close frame there), or the connection failed. */
    void failed(Side side, Throwable cause) {
        if (!(cause instanceof CorruptedWebSocketFrameException corrupt)) {
            LOG.log(Level.FINE, "WebSocket connection failed", cause);
            gone(side);
            return;
        }
        if (side == Side.CLIENT) {
            closeToClient = true; // the decoder told the client
            end(Refusals.badRequest(Refusals.Problem.BAD_WEBSOCKET_FRAME, corrupt.getMessage()), Side.PROXY, corrupt.closeStatus(), null);
        } else {
            closeToUpstream = true;
            end(Refusals.of(Reason.UPSTREAM_UNREACHABLE, destination.host(), state.profile(), "the upstream broke the WebSocket protocol: "
                    + corrupt.getMessage()), Side.PROXY, WebSocketCloseStatus.BAD_GATEWAY, "the upstream broke the WebSocket protocol");
        }
    }

    @Override
    public void end(Refusal why, Side by, WebSocketCloseStatus code, String reason) {
        if (ending) {
            return;
        }
        refusal = why;
        if (why != null || closedBy == null) { // an idle end after a close frame keeps that frame's code
            closedBy = by;
            closeCode = code.code();
        }
        shutDown(code, reason, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "the client's connection ended");
    }

    private void shutDown(WebSocketCloseStatus toClient, String clientReason, WebSocketCloseStatus toUpstream, String upstreamReason) {
        if (ending) {
            return;
        }
        ending = true;
        if (!closeToClient) {
            closeToClient = true;
            sendClose(client, toClient, clientReason);
        }
        if (!closeToUpstream) {
            closeToUpstream = true;
            sendClose(upstream, toUpstream, upstreamReason);
        }
        end();
    }

    private static void sendClose(Channel channel, WebSocketCloseStatus status, String reason) {
        if (channel.isActive()) {
            channel.writeAndFlush(reason == null ? new CloseWebSocketFrame(status.code(), null) : new CloseWebSocketFrame(status, reason));
        }
    }

    /** Both sides are done (or the wait for an answering close is over): flush, close both, record once. */
    private void end() {
        if (finished) {
            return;
        }
        finished = true;
        ending = true;
        if (closeWait != null) {
            closeWait.cancel(false);
        }
        fromClient.abandon();
        fromUpstream.abandon();
        if (!closeToClient) { // the wait for the upstream's answer to the client's close is over
            sendClose(client, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "the upstream did not answer the close");
        }
        if (!closeToUpstream) {
            sendClose(upstream, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "the client did not answer the close");
        }
        exchange.finishWebSocket(proxy, refusal, new AuditRecord.WebSocket(messagesUp, messagesDown, closeCode,
                closedBy == null ? null : closedBy.label()));
        for (Channel c : new Channel[] {client, upstream}) {
            if (c.isActive()) {
                c.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }
        // A side that stopped reading never completes that flush: it is closed anyway, with what
        // it would not take, so that no connection (nor its unwritten message) outlives the session.
        client.eventLoop().schedule(() -> {
            client.close();
            upstream.close();
        }, CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public ProxyContext proxy() {
        return proxy;
    }

    @Override
    public ProxyState state() {
        return state;
    }

    @Override
    public Exchange exchange() {
        return exchange;
    }

    @Override
    public Destination destination() {
        return destination;
    }
}
