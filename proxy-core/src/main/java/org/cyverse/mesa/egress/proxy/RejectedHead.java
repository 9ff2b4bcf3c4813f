package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * Emitted by {@link StrictRequestDecoder} instead of a request when the head is refused before
 * parsing: {@link Reason#BAD_REQUEST} or {@link Reason#HEADERS_TOO_LARGE}.
 */
record RejectedHead(Reason reason, String problem) {}
