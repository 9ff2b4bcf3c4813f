package org.cyverse.mesa.egress.allowlist;

/** What a canonical destination host is. */
public enum HostKind {
    /** A DNS name: lowercase, punycode, no trailing dot. */
    NAME,
    /** An IPv4 literal in dotted-quad form. */
    IPV4,
    /** An IPv6 literal in RFC 5952 form, without brackets. */
    IPV6
}
