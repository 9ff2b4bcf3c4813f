package org.cyverse.mesa.egress.approval;

import java.time.Instant;
import java.util.Locale;

/**
 * One approval request and what became of it. Immutable: the {@link ApprovalBook} replaces it as
 * it changes.
 *
 * @param id e.g. {@code apr_7f3c...}; what the inbox approves or denies
 * @param asked the scope the refused requests asked for: their host and port
 * @param state where it is in its life
 * @param count how many requests asked for it
 * @param firstSeen the first request
 * @param lastSeen the latest request
 * @param expires when a pending request expires undecided ({@code first_seen + pending_ttl}); for a
 *     denial, until when the same host's requests are refused without a new request
 * @param decidedAt when it was approved or denied, or {@code null}
 * @param decidedBy the admin token's label that decided, or {@code null}
 * @param granted the scope approved, or {@code null}
 * @param grantExpires when the grant ends, or {@code null} for the job's lifetime (or no grant)
 */
public record Approval(String id, ApprovalScope asked, State state, int count, Instant firstSeen, Instant lastSeen, Instant expires,
        Instant decidedAt, String decidedBy, ApprovalScope granted, Instant grantExpires) {

    /** The life of an approval (README: "Approval inbox"). */
    public enum State {
        /** Asked for, not decided yet; requests for it answer {@code approval_required}. */
        PENDING,
        /** Approved: {@link #granted} is in the policy until {@link #grantExpires}. */
        APPROVED,
        /** Denied: requests for the host are refused {@code host_not_allowed} until {@link #expires}. */
        DENIED,
        /** Pending past {@code pending_ttl} with no decision. */
        EXPIRED,
        /** Approved, and its grant ran out. */
        GRANT_EXPIRED;

        private final String label = name().toLowerCase(Locale.ROOT);

        public String label() {
            return label;
        }
    }

    Approval askedAgain(Instant now) {
        return new Approval(id, asked, state, count + 1, firstSeen, now, expires, decidedAt, decidedBy, granted, grantExpires);
    }

    Approval to(State next, Instant now) {
        return new Approval(id, asked, next, count, firstSeen, lastSeen, expires, next == State.EXPIRED || next == State.GRANT_EXPIRED
                ? decidedAt : now, decidedBy, granted, grantExpires);
    }

    Approval approved(ApprovalScope scope, Instant until, String by, Instant now) {
        return new Approval(id, asked, State.APPROVED, count, firstSeen, lastSeen, expires, now, by, scope, until);
    }

    Approval denied(String by, Instant now, Instant remembered) {
        return new Approval(id, asked, State.DENIED, count, firstSeen, lastSeen, remembered, now, by, null, null);
    }

    /** Whether its grant is in force at {@code now}. */
    boolean grants(Instant now) {
        return state == State.APPROVED && (grantExpires == null || now.isBefore(grantExpires));
    }
}
