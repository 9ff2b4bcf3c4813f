package org.cyverse.mesa.egress.proxy.upstream;

import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusal;
import org.cyverse.mesa.egress.admission.Refusals;

/** Why an upstream could not be reached, as the refusal the client gets. */
public final class DialFailure extends Exception {

    private final Refusal refusal;

    DialFailure(Refusal refusal) {
        super(refusal.error(), null, false, false);
        this.refusal = refusal;
    }

    Refusal refusal() {
        return refusal;
    }

    /** The refusal for a failed dial: the dialer's own, or upstream_unreachable for anything unexpected. */
    public static Refusal refusalOf(Throwable cause, String host, String profile) {
        return cause instanceof DialFailure ? ((DialFailure) cause).refusal()
                : Refusals.of(Reason.UPSTREAM_UNREACHABLE, host, profile, String.valueOf(cause));
    }
}
