package org.cyverse.mesa.egress.proxy.websocket;

import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.util.List;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.injector.StreamReplacer;
import org.cyverse.mesa.egress.proxy.body.BodyRewriting;

/**
 * The upstream's side of a WebSocket: a real secret the upstream echoes is replaced by its
 * sentinel before the agent sees it, as in response bodies. Messages stream frame by frame: the
 * replacer holds back at most the end of a partial match (a secret split across frames is still
 * found), which goes out with the message's last frame. Control frames and the close reason are
 * scrubbed on their own.
 */
final class WebSocketInbound {

    /** RFC 6455 section 5.5: a control frame's payload is at most 125 bytes. */
    private static final int MAX_CONTROL_PAYLOAD = 125;

    private final WebSocketOwner session;
    /**
     * The scrubbing as the handshake left, grown with every form noted since: a form the proxy
     * wrote for this connection stays in it even after the injector forgets it (the last 64 Basic
     * forms, a credential rotated or reloaded away), for as long as the connection lives.
     */
    private EchoScrubber echo;
    private StreamReplacer replacer;

    WebSocketInbound(WebSocketOwner session, EchoScrubber echo) {
        this.session = session;
        this.echo = echo;
    }

    private EchoScrubber echo() {
        echo = echo.merged(session.proxy().state().injector().echoScrubber());
        return echo;
    }

    /** A text, binary, continuation, ping or pong frame from the upstream. */
    void frame(WebSocketFrame frame) {
        EchoScrubber echo = echo();
        boolean control = frame instanceof PingWebSocketFrame || frame instanceof PongWebSocketFrame;
        if (control) {
            session.relay(WebSocketOwner.Side.UPSTREAM, List.of(scrubbedControl(frame, echo)));
            return;
        }
        boolean last = frame.isFinalFragment();
        if (replacer == null && echo.isEmpty()) {
            relay(frame, last);
            return;
        }
        if (replacer == null) {
            replacer = echo.newReplacer();
        }
        WebSocketFrame scrubbed = BodyRewriting.rewrite(frame, replacer);
        if (last) {
            replacer = null;
        }
        relay(scrubbed, last);
    }

    private void relay(WebSocketFrame frame, boolean messageEnds) {
        if (messageEnds) {
            session.messageRelayed(WebSocketOwner.Side.UPSTREAM);
        }
        session.relay(WebSocketOwner.Side.UPSTREAM, List.of(frame));
    }

    /** The upstream's close frame with its reason scrubbed (consumed). */
    CloseWebSocketFrame scrubbedClose(CloseWebSocketFrame close) {
        return (CloseWebSocketFrame) scrubbedControl(close, echo());
    }

    /** A control frame scrubbed whole; one the scrubbing would lengthen past 125 bytes goes with its payload cut there. */
    private static WebSocketFrame scrubbedControl(WebSocketFrame frame, EchoScrubber echo) {
        if (echo.isEmpty() || !frame.content().isReadable()) {
            return frame;
        }
        WebSocketFrame scrubbed = BodyRewriting.rewrite(frame, echo.newReplacer()); // a control frame is always final
        if (scrubbed.content().readableBytes() <= MAX_CONTROL_PAYLOAD) {
            return scrubbed;
        }
        WebSocketFrame cut = scrubbed.replace(scrubbed.content().retainedSlice(0, MAX_CONTROL_PAYLOAD));
        scrubbed.release();
        return cut;
    }

    /** The connection is closing: a message under way is dropped. */
    void abandon() {
        replacer = null;
    }
}
