package org.cyverse.mesa.egress.proxy.agent;

import io.netty.buffer.ByteBuf;

/**
 * A strict, incremental byte-level check of one HTTP/1.1 request head (request line and header
 * fields, up to the empty line), run before Netty's decoder parses it.
 *
 * <p>It refuses the shapes that let a proxy and an upstream disagree about where a request ends
 * (RFC 9112 section 11.2, "request smuggling"): a bare LF or bare CR as a line end (section 2.2),
 * obs-fold continuation lines (section 5.2), whitespace between a field name and its colon
 * (section 5.1), and control bytes anywhere in the head. The request line is exactly
 * {@code method SP request-target SP HTTP-version} (section 3): a token for the method, one
 * space each, no empty target, and {@code HTTP/1.1} or {@code HTTP/1.0} (an {@code HTTP/1.2} or
 * {@code HTTP/2.0} that a lenient parser reads as 1.1 is refused). It also enforces the head's
 * size limit. Leading empty lines before the request line are skipped, as section 2.2 allows.
 *
 * <p>Incremental: bytes already judged are not scanned again when more arrive.
 */
final class RequestHeadScanner {

    /** The scan's outcome so far. */
    enum Result { INCOMPLETE, COMPLETE, INVALID, TOO_LARGE }

    private enum State { LEADING, REQUEST_LINE, LINE_START, NAME, VALUE }

    private final int maxBytes;
    private State state = State.LEADING;
    private boolean afterCr;
    private State afterLineEnd;
    private int scanned;
    private int headEnd;
    private String problem;
    /** Which part of the request line the next byte belongs to: 0 method, 1 target, 2 version. */
    private int part;
    private int partLength;
    private final StringBuilder version = new StringBuilder(8);

    RequestHeadScanner(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Starts over for the next request on the connection. */
    void reset() {
        state = State.LEADING;
        afterCr = false;
        afterLineEnd = null;
        scanned = 0;
        headEnd = 0;
        problem = null;
        part = 0;
        partLength = 0;
        version.setLength(0);
    }

    /** What was wrong, after {@link Result#INVALID}. */
    String problem() {
        return problem;
    }

    /** Bytes from the buffer's reader index to the end of the head, after {@link Result#COMPLETE}. */
    int headLength() {
        return headEnd;
    }

    /** Scans the readable bytes of {@code in} without consuming them. */
    Result scan(ByteBuf in) {
        int base = in.readerIndex();
        int limit = in.readableBytes();
        while (scanned < limit) {
            if (scanned >= maxBytes) {
                return Result.TOO_LARGE;
            }
            int b = in.getByte(base + scanned) & 0xff;
            scanned++;
            Result r = step(b);
            if (r != Result.INCOMPLETE) {
                return r;
            }
        }
        return Result.INCOMPLETE;
    }

    private Result step(int b) {
        if (afterCr) {
            afterCr = false;
            if (b != '\n') {
                return invalid("a bare CR in the request head");
            }
            return endOfLine();
        }
        if (b == '\n') {
            return invalid("a bare LF (without CR) in the request head");
        }
        if (b == '\r') {
            afterCr = true;
            afterLineEnd = state;
            return Result.INCOMPLETE;
        }
        switch (state) {
            case LEADING:
                state = State.REQUEST_LINE;
                return requestLineByte(b);
            case REQUEST_LINE:
                return requestLineByte(b);
            case LINE_START:
                if (b == ' ' || b == '\t') {
                    return invalid("an obs-fold continuation line (a header line starting with whitespace)");
                }
                state = State.NAME;
                return nameByte(b);
            case NAME:
                if (b == ':') {
                    state = State.VALUE;
                    return Result.INCOMPLETE;
                }
                return nameByte(b);
            case VALUE:
                if (b == '\t' || (b >= 0x20 && b != 0x7f)) {
                    return Result.INCOMPLETE;
                }
                return invalid("a control byte 0x" + Integer.toHexString(b) + " in a header value");
            default:
                throw new IllegalStateException(state.name());
        }
    }

    private Result endOfLine() {
        switch (afterLineEnd) {
            case LEADING:
                state = State.LEADING;
                return Result.INCOMPLETE;
            case REQUEST_LINE:
                if (part != 2 || partLength == 0) {
                    return invalid("a request line that is not METHOD SP TARGET SP VERSION");
                }
                if (version.toString().equals("HTTP/2.0")) {
                    return invalid("HTTP/2 with prior knowledge (the PRI preface) is not spoken to the proxy itself: send HTTP/1.1"
                            + " (https:// through CONNECT negotiates HTTP/2 with ALPN inside)");
                }
                if (!version.toString().equals("HTTP/1.1") && !version.toString().equals("HTTP/1.0")) {
                    return invalid("HTTP version " + version + " (HTTP/1.1 or HTTP/1.0 expected)");
                }
                state = State.LINE_START;
                return Result.INCOMPLETE;
            case VALUE:
                state = State.LINE_START;
                return Result.INCOMPLETE;
            case LINE_START:
                headEnd = scanned;
                return Result.COMPLETE;
            case NAME:
                return invalid("a header line without a colon");
            default:
                throw new IllegalStateException(afterLineEnd.name());
        }
    }

    private Result requestLineByte(int b) {
        if (b == ' ') {
            if (partLength == 0 || part == 2) {
                return invalid("a request line with more than one space between its parts");
            }
            part++;
            partLength = 0;
            return Result.INCOMPLETE;
        }
        if (b <= 0x20 || b >= 0x7f) {
            return invalid("byte 0x" + Integer.toHexString(b) + " in the request line");
        }
        if (part == 0 && !isTchar(b)) {
            return invalid("byte 0x" + Integer.toHexString(b) + " in the method (a token)");
        }
        if (part == 2 && version.length() < 9) {
            version.append((char) b);
        }
        partLength++;
        return Result.INCOMPLETE;
    }

    private Result nameByte(int b) {
        if (isTchar(b)) {
            return Result.INCOMPLETE;
        }
        if (b == ' ' || b == '\t') {
            return invalid("whitespace in or after a header name");
        }
        return invalid("byte 0x" + Integer.toHexString(b) + " in a header name");
    }

    private Result invalid(String message) {
        problem = message;
        return Result.INVALID;
    }

    /** RFC 9110 section 5.6.2 token characters. */
    private static boolean isTchar(int b) {
        if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')) {
            return true;
        }
        return "!#$%&'*+-.^_`|~".indexOf(b) >= 0;
    }
}
