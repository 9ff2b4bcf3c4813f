package org.cyverse.mesa.egress.admission;

import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Locale;

/**
 * Why TLS with an upstream failed, in the terms of what a person would change: the certificate
 * (its chain or name), an application protocol the upstream insists on (an HTTP/2-only server
 * refusing ALPN {@code http/1.1}), no TLS version or cipher in common, a client certificate the
 * upstream wants, or a port that does not speak TLS. Each has its own hint; all are
 * {@code 502 upstream_tls_error}.
 *
 * @param detail what the TLS stack said (the root cause's class and message; never a secret)
 */
public record UpstreamTlsFailure(Kind kind, String detail) {

    /** The kinds, each with the hint {@link Refusals#upstreamTls} gives. */
    public enum Kind { CERTIFICATE, APPLICATION_PROTOCOL, NO_COMMON_VERSION, CLIENT_CERTIFICATE, NOT_TLS, OTHER }

    /** Classifies a failed handshake by its cause chain and the TLS alert it carries. */
    public static UpstreamTlsFailure of(Throwable cause) {
        if (cause == null) {
            return new UpstreamTlsFailure(Kind.OTHER, "handshake failed");
        }
        Kind kind = Kind.OTHER;
        Throwable root = cause;
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            root = t;
            kind = kind != Kind.OTHER ? kind : kindOf(t);
        }
        return new UpstreamTlsFailure(kind, root.getClass().getSimpleName() + ": " + root.getMessage());
    }

    private static Kind kindOf(Throwable t) {
        if (t instanceof CertificateException || t instanceof CertPathValidatorException) {
            return Kind.CERTIFICATE;
        }
        if (t.getClass().getSimpleName().equals("NotSslRecordException")) {
            return Kind.NOT_TLS;
        }
        String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
        // The alert names of RFC 8446 section 6 as the JDK ("Received fatal alert: no_application_protocol")
        // and BoringSSL ("TLSV1_ALERT_NO_APPLICATION_PROTOCOL") print them.
        if (message.contains("no_application_protocol")) {
            return Kind.APPLICATION_PROTOCOL;
        }
        if (message.contains("protocol_version") || message.contains("handshake_failure") || message.contains("insufficient_security")
                || message.contains("no appropriate protocol") || message.contains("no negotiable cipher")) {
            return Kind.NO_COMMON_VERSION;
        }
        if (message.contains("certificate_required")) {
            return Kind.CLIENT_CERTIFICATE;
        }
        if (message.contains("pkix") || message.contains("subject alternative") || message.contains("certificate")) {
            return Kind.CERTIFICATE;
        }
        if (message.contains("not an ssl/tls record") || message.contains("wrong_version_number") || message.contains("unrecognized ssl message")
                || message.contains("plaintext connection")) {
            return Kind.NOT_TLS;
        }
        return Kind.OTHER;
    }
}
