package org.cyverse.mesa.egress.proxy.agent;

import io.netty.buffer.ByteBuf;
import java.util.Locale;
import java.util.Set;
import org.cyverse.mesa.egress.admission.Refusals;

/**
 * A strict, incremental byte-level check of a chunked request body (RFC 9112 section 7.1), run
 * beside Netty's decoder, which is lenient where a proxy must not be: it skips whatever precedes
 * the line feed after a chunk's data, takes obs-fold in the trailer section, and silently drops
 * {@code Content-Length}, {@code Transfer-Encoding} and {@code Trailer} trailer fields. This check
 * refuses instead:
 * <ul>
 *   <li>a chunk-size line that is not {@code 1*HEXDIG [chunk-ext] CRLF}, or data not followed by
 *       CRLF ({@link Refusals.Problem#MALFORMED_BODY});
 *   <li>a trailer line that is not {@code field-name ":" field-value CRLF} (a token for the
 *       name, no whitespace before the colon, no control bytes but HTAB, no obs-fold, no bare CR
 *       or LF), a trailer section over the head's size limit, and a trailer field that RFC 9110
 *       section 6.5.1 keeps out of trailers because a recipient must know it before the content:
 *       framing, routing, request modifiers, authentication and content handling, and every
 *       hop-by-hop field ({@link Refusals.Problem#MALFORMED_TRAILERS}).
 * </ul>
 * It reads no further than the end of the trailer section: what follows is the next request.
 * Not thread-safe: one per request body.
 */
final class ChunkedFraming {

    /** A body this check refused, carried as the failed decoder result of the request's end. */
    static final class Malformed extends RuntimeException {
        private final Refusals.Problem problem;

        Malformed(Refusals.Problem problem, String message) {
            super(message, null, false, false);
            this.problem = problem;
        }

        Refusals.Problem problem() {
            return problem;
        }
    }

    /** The problem a failed body decoder result stands for: this check's, or Netty's malformed body. */
    static Refusals.Problem problemOf(Throwable cause) {
        return cause instanceof Malformed m ? m.problem() : Refusals.Problem.MALFORMED_BODY;
    }

    /** Trailer fields refused by name (lowercase); {@code if-*} and {@code proxy-*} by prefix. */
    static final Set<String> FORBIDDEN = Set.of(
            // framing (RFC 9112 sections 6, 7)
            "content-length", "transfer-encoding", "trailer",
            // routing (RFC 9110 section 7.2, RFC 7239)
            "host", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
            // request modifiers: controls (RFC 9110 section 10.1) and caching (RFC 9111 section 5)
            "cache-control", "expect", "max-forwards", "pragma", "range", "te",
            // authentication (RFC 9110 section 11, RFC 6265)
            "authorization", "proxy-authorization", "cookie",
            // how to process the content (RFC 9110 sections 8.3, 8.4, 14.4)
            "content-encoding", "content-type", "content-range",
            // hop-by-hop (RFC 9110 section 7.6.1)
            "connection", "keep-alive", "upgrade");

    /** The check's outcome so far. */
    enum Result { MORE, DONE, INVALID }

    private enum State { SIZE, EXT, SIZE_LF, DATA, DATA_CR, DATA_LF, LINE_START, NAME, VALUE, LINE_LF, END_LF }

    private static final int MAX_SIZE_DIGITS = 16;

    private final int maxTrailerBytes;
    private State state = State.SIZE;
    private int digits;
    private long remaining;
    private int trailerBytes;
    private final StringBuilder name = new StringBuilder(32);
    private Malformed problem;

    ChunkedFraming(int maxTrailerBytes) {
        this.maxTrailerBytes = maxTrailerBytes;
    }

    /** What was wrong, after {@link Result#INVALID}. */
    Malformed problem() {
        return problem;
    }

    /** Checks {@code in}'s bytes from index {@code from} to {@code to} (exclusive), without consuming them. */
    Result feed(ByteBuf in, int from, int to) {
        int i = from;
        while (i < to) {
            if (state == State.DATA) {
                int n = (int) Math.min(remaining, to - i);
                i += n;
                remaining -= n;
                if (remaining == 0) {
                    state = State.DATA_CR;
                }
                continue;
            }
            int b = in.getByte(i++) & 0xff;
            Result r = step(b);
            if (r != Result.MORE) {
                return r;
            }
        }
        return Result.MORE;
    }

    private Result step(int b) {
        switch (state) {
            case SIZE:
                int digit = Character.digit(b, 16);
                if (digit >= 0 && b < 0x80) {
                    if (++digits > MAX_SIZE_DIGITS || remaining > (Long.MAX_VALUE >> 4)) {
                        return body("a chunk size over " + MAX_SIZE_DIGITS + " hex digits");
                    }
                    remaining = remaining << 4 | digit;
                    return Result.MORE;
                }
                if (digits == 0) {
                    return body("a chunk-size line that does not start with a hex number");
                }
                if (b == '\r') {
                    state = State.SIZE_LF;
                    return Result.MORE;
                }
                if (b == ';' || b == ' ' || b == '\t') {
                    state = State.EXT;
                    return Result.MORE;
                }
                return body("a chunk size followed by 0x" + Integer.toHexString(b));
            case EXT:
                if (b == '\r') {
                    state = State.SIZE_LF;
                    return Result.MORE;
                }
                return visible(b) ? Result.MORE : body("a control byte in a chunk extension");
            case SIZE_LF:
                if (b != '\n') {
                    return body("a chunk-size line ending in a bare CR");
                }
                digits = 0;
                if (remaining == 0) {
                    state = State.LINE_START;
                } else {
                    state = State.DATA;
                }
                return Result.MORE;
            case DATA_CR:
                if (b != '\r') {
                    return body("chunk data longer than its size, or not followed by CRLF");
                }
                state = State.DATA_LF;
                return Result.MORE;
            case DATA_LF:
                if (b != '\n') {
                    return body("chunk data followed by a bare CR");
                }
                state = State.SIZE;
                return Result.MORE;
            default:
                return trailer(b);
        }
    }

    /** One byte of the trailer section (after the last chunk's size line). */
    private Result trailer(int b) {
        if (++trailerBytes > maxTrailerBytes) {
            return trailers("a trailer section over limits.max_header_bytes (" + maxTrailerBytes + ")");
        }
        switch (state) {
            case LINE_START:
                if (b == '\r') {
                    state = State.END_LF;
                    return Result.MORE;
                }
                if (b == ' ' || b == '\t') {
                    return trailers("an obs-fold continuation line in the trailer section (RFC 9112 section 5.2)");
                }
                state = State.NAME;
                name.setLength(0);
                return nameByte(b);
            case NAME:
                return nameByte(b);
            case VALUE:
                if (b == '\r') {
                    state = State.LINE_LF;
                    return Result.MORE;
                }
                return visible(b) ? Result.MORE : trailers("a control byte in a trailer field's value");
            case LINE_LF:
                if (b != '\n') {
                    return trailers("a bare CR in a trailer field's value");
                }
                state = State.LINE_START;
                return Result.MORE;
            case END_LF:
                return b == '\n' ? Result.DONE : trailers("the trailer section ends in a bare CR");
            default:
                throw new IllegalStateException(state.name());
        }
    }

    private Result nameByte(int b) {
        if (b == ':') {
            if (name.length() == 0) {
                return trailers("a trailer field with an empty name");
            }
            String field = name.toString().toLowerCase(Locale.ROOT);
            if (FORBIDDEN.contains(field) || field.startsWith("if-") || field.startsWith("proxy-")) {
                // Named from the list (or the prefix alone): a name the client made up is never quoted back.
                String shown = FORBIDDEN.contains(field) ? field : field.substring(0, field.indexOf('-') + 1) + "*";
                return trailers("trailer field " + shown + " is not allowed in a trailer section (RFC 9110 section 6.5.1)");
            }
            state = State.VALUE;
            return Result.MORE;
        }
        if (!tchar(b)) {
            return trailers(b == ' ' || b == '\t' ? "whitespace in or after a trailer field name" : name.length() == 0 && b == '\n'
                    ? "a bare LF in the trailer section" : "a trailer line that is not name: value");
        }
        if (name.length() < 256) {
            name.append((char) b);
        }
        return Result.MORE;
    }

    private Result body(String message) {
        problem = new Malformed(Refusals.Problem.MALFORMED_BODY, message);
        return Result.INVALID;
    }

    private Result trailers(String message) {
        problem = new Malformed(Refusals.Problem.MALFORMED_TRAILERS, message);
        return Result.INVALID;
    }

    /** VCHAR, obs-text, SP or HTAB (RFC 9110 section 5.5). */
    private static boolean visible(int b) {
        return b >= 0x21 && b != 0x7f || b == ' ' || b == '\t';
    }

    /** A token character (RFC 9110 section 5.6.2). */
    private static boolean tchar(int b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || "!#$%&'*+-.^_`|~".indexOf(b) >= 0;
    }
}
