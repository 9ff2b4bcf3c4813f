package org.cyverse.mesa.egress.injector;

import java.util.concurrent.CompletableFuture;

/**
 * One concern's look at a request body as it streams toward the upstream, chunk by chunk, as an
 * Envoy data filter answers each chunk with one closed status: the proxy runs every check of a
 * request in order, holds the request head and the body while any check holds, and stops the
 * body at the first refusal. A credential kind contributes its checks through
 * {@link RequestUse#body()} (a push's branch rule, aws-chunked re-signing); the proxy does not
 * know the kinds. Netty-free: bytes in, bytes out. Confined to the request's thread, but for
 * the future of {@link #awaiting}, which completes wherever the check's question is answered.
 */
public interface BodyCheck extends AutoCloseable {

    /** Makes the check of one body; made by the admission, started when the body begins. */
    @FunctionalInterface
    interface Plan {
        BodyCheck start();
    }

    /** What a check says of the body after a chunk. */
    enum Status {
        /** The chunk may go on (through {@link #rewrite}). */
        CONTINUE,
        /** Keep the request head and the body so far: the check has not read enough to decide. */
        HOLD,
        /**
         * Refused, but answered only once the client has sent its whole body, which is read and
         * dropped meanwhile: a client still sending when the answer comes (git's curl) would send
         * the request again on a new connection and report that instead.
         */
        DROP,
        /** Refused now: {@link #refusal()} says why. */
        REFUSE,
        /**
         * Keep this chunk, the rest of the body and the head (if it has not gone) until the
         * question the check asked elsewhere is answered ({@link #awaiting}); then
         * {@link #resume} says what the check says now. Nothing more is read from the client meanwhile.
         */
        WAIT
    }

    /**
     * Takes one chunk before any of it leaves; {@code bytes} is not kept.
     *
     * @param bytes the chunk's bytes when {@link #reads()} said so just before, else empty (the
     *     check is still told where the body ends)
     * @param last whether the body ends with this chunk
     */
    Status inspect(byte[] bytes, boolean last);

    /** Whether the check reads the next chunk's bytes (copying them is spared when no check does). */
    default boolean reads() {
        return true;
    }

    /** Whether the request head waits for this check's first decision (it refuses before anything leaves). */
    default boolean holdsHead() {
        return false;
    }

    /** Whether this check may still refuse at the body's last chunk after the head went. */
    default boolean judgedAtEnd() {
        return false;
    }

    /**
     * A chunk this check allowed, as it goes on: the same bytes by default.
     *
     * @throws Refused when what the chunk turns out to hold must not go on (a chunk signature that is not the client's)
     */
    default byte[] rewrite(byte[] bytes, boolean last) throws Refused {
        return bytes;
    }

    /** Whether {@link #rewrite} may change a chunk's bytes (a check that does not is never asked, and nothing is copied). */
    default boolean rewrites() {
        return false;
    }

    /** Whether {@link #rewrite} may change the body's length (the body is then sent chunked, without its Content-Length). */
    default boolean changesLength() {
        return false;
    }

    /** What a check that said {@link Status#WAIT} waits for; completes (never exceptionally) once it can go on. */
    default CompletableFuture<?> awaiting() {
        return CompletableFuture.completedFuture(null);
    }

    /** What the check says once {@link #awaiting} completed, as {@link #inspect} would have said it (on the request's thread). */
    default Status resume() {
        return Status.CONTINUE;
    }

    /** Why the check refused, once {@link #inspect} said {@link Status#REFUSE}. */
    default Refusal refusal() {
        return null;
    }

    /** Frees what the check holds (the body was abandoned or ended). */
    @Override
    default void close() {}

    /**
     * A body refused by a check, for the proxy's one refusal map to answer.
     *
     * @param reason the reason code of SPEC.md ({@code ref_not_allowed}, {@code sigv4_signature_mismatch}, ...);
     *     {@code bad_request} for a body that is not what it claims (400, saying how much of it had gone upstream)
     * @param credential the credential whose rule refused (the hint then names it and how to use it), or
     *     {@code null} for a refusal the answer explains without one
     * @param detail for the message; never a secret value
     * @param style how the client reads the answer
     * @param answer the answer the client's protocol expects instead of an error (a receive-pack report), or {@code null}
     */
    record Refusal(String reason, String credential, String detail, AnswerStyle style, Answer answer) {}

    /** An answer in the client's own protocol: status, content type, body. */
    record Answer(int status, String contentType, byte[] body) {
        public Answer {
            body = body.clone();
        }
    }

    /** {@link #rewrite} found a chunk that must not go on. */
    final class Refused extends Exception {
        private final transient Refusal refusal;

        public Refused(Refusal refusal) {
            super(refusal.detail(), null, false, false);
            this.refusal = refusal;
        }

        public Refusal refusal() {
            return refusal;
        }
    }
}
