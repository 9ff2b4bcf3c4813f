package org.cyverse.mesa.egress.config;

/**
 * Command-line flags that override the config file (which overrides the defaults). Each is
 * {@code null} when not given.
 */
public record Overrides(String profile, String listen, String admin) {
    public static final Overrides NONE = new Overrides(null, null, null);
}
