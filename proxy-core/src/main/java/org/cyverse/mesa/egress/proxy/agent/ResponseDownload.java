package org.cyverse.mesa.egress.proxy.agent;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import org.cyverse.mesa.egress.injector.EchoScrubber;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.body.ResponseFraming;
import org.cyverse.mesa.egress.proxy.body.ResponseLengthHold;
import org.cyverse.mesa.egress.proxy.body.ResponseScrubbing;

/**
 * The response's way back to the client, the second of a {@link ForwardExchange}'s two directions
 * (the first is its {@link org.cyverse.mesa.egress.proxy.body.RequestUpload}): where it stands
 * ({@link Stage}), the secrets the upstream echoes scrubbed from heads and trailers, and the final
 * head framed for the client with what its body goes through. The exchange writes what this
 * returns and decides what a failure ends. Confined to the client channel's event loop.
 */
final class ResponseDownload {

    /** No head yet, an interim (1xx) response, the final one, all of it written. */
    enum Stage { AWAITING, INTERIM, STREAMING, COMPLETE }

    private final HttpRequest request;
    private final ProxyState state;
    private final boolean credentialHost;
    private EchoScrubber echo; // the response scrubbing as the request left, and with what was written since
    Stage stage = Stage.AWAITING;
    /** The final head's framing, once it came. */
    ResponseFraming framing;
    /** The final status, once it came. */
    int status;

    ResponseDownload(HttpRequest request, ProxyState state, boolean credentialHost) {
        this.request = request;
        this.state = state;
        this.credentialHost = credentialHost;
        this.echo = state.injector().echoScrubber();
    }

    /** The scrubbing as the request left, and with the forms written since. */
    EchoScrubber echo() {
        return echo;
    }

    /** An interim head, scrubbed in place. */
    void interim(HttpResponse response) {
        stage = Stage.INTERIM;
        ResponseScrubbing.interim(response.headers(), echo);
    }

    /**
     * The final head as the client gets it (a scrubbed body may get its length back), or
     * {@code null} when its body cannot be read to be scrubbed ({@link ResponseFraming#unreadable}).
     */
    HttpObject head(HttpResponse response, boolean closeClient) {
        echo = echo.merged(state.injector().echoScrubber()); // and the forms written since (its trailers)
        framing = ResponseFraming.prepare(response, request, echo, closeClient, credentialHost);
        if (framing.unreadable() != null) {
            return null;
        }
        stage = Stage.STREAMING;
        status = response.status().code();
        return ResponseLengthHold.head(response, framing, state);
    }

    /** A part of the body as the client gets it, or {@code null} when it must be cut ({@link #cutBecause}). */
    HttpObject body(HttpContent content) {
        return framing != null && framing.body() != null && stage != Stage.INTERIM ? framing.body().transform(content) : content;
    }

    String cutBecause() {
        return framing.body().cutBecause();
    }

    /** Scrubs the trailers, when {@code msg} carries them. */
    void scrubTrailers(HttpObject msg) {
        ResponseScrubbing.scrubTrailers(msg, echo);
    }

    /** Releases what the body's way holds. */
    void release() {
        if (framing != null && framing.body() != null) {
            framing.body().close();
        }
    }
}
