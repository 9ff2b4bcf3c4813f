package org.cyverse.mesa.egress.proxy;

/** Why an upstream could not be reached, as the refusal the client gets. */
final class DialFailure extends Exception {

    private final Refusal refusal;

    DialFailure(Refusal refusal) {
        super(refusal.error(), null, false, false);
        this.refusal = refusal;
    }

    Refusal refusal() {
        return refusal;
    }
}
