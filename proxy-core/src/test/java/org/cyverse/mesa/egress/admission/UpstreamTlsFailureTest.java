package org.cyverse.mesa.egress.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.NotSslRecordException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import org.cyverse.mesa.egress.admission.UpstreamTlsFailure.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each way a handshake with an upstream fails, as the JDK and BoringSSL report it, gets the hint that fits it. */
class UpstreamTlsFailureTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Received fatal alert: no_application_protocol                              | APPLICATION_PROTOCOL
            error:10000460:SSL routines:OPENSSL_internal:TLSV1_ALERT_NO_APPLICATION_PROTOCOL | APPLICATION_PROTOCOL
            Received fatal alert: protocol_version                                     | NO_COMMON_VERSION
            error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE | NO_COMMON_VERSION
            No appropriate protocol (protocol is disabled or cipher suites are inappropriate) | NO_COMMON_VERSION
            error:1000045c:SSL routines:OPENSSL_internal:TLSV1_CERTIFICATE_REQUIRED   | CLIENT_CERTIFICATE
            error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED    | CERTIFICATE
            No subject alternative DNS name matching localhost found.                 | CERTIFICATE
            error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER         | NOT_TLS
            Unsupported or unrecognized SSL message                                   | NOT_TLS
            Connection reset                                                          | OTHER
            """)
    void classifiesByTheAlertTheStackReports(String message, Kind kind) {
        UpstreamTlsFailure failure = UpstreamTlsFailure.of(new SSLHandshakeException(message));
        assertEquals(kind, failure.kind());
        assertEquals("SSLHandshakeException: " + message, failure.detail());
    }

    @org.junit.jupiter.api.Test
    void aCertificateExceptionAnywhereInTheChainIsACertificateProblem() {
        SSLHandshakeException outer = new SSLHandshakeException("handshake failed");
        outer.initCause(new CertificateException("PKIX path validation failed"));
        UpstreamTlsFailure failure = UpstreamTlsFailure.of(outer);
        assertEquals(Kind.CERTIFICATE, failure.kind());
        assertEquals("CertificateException: PKIX path validation failed", failure.detail(), "the root cause is what the error shows");
        assertTrue(Refusals.upstreamTls(outer, "a.example.org", "P2").hint().contains("tls.upstream_ca"));
        assertEquals(Kind.NOT_TLS, UpstreamTlsFailure.of(new NotSslRecordException("not an SSL/TLS record: 485454502f")).kind());
    }
}
