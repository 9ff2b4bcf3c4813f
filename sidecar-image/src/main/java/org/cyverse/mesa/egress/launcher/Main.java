package org.cyverse.mesa.egress.launcher;

/** Entry point of {@code bin/mesa-egress}. */
public final class Main {
    public static void main(String[] args) {
        System.exit(2);
    }
}
