package org.cyverse.mesa.egress.proxy.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.FullHttpResponse;
import java.nio.charset.StandardCharsets;
import org.cyverse.mesa.egress.admission.Reason;
import org.cyverse.mesa.egress.admission.Refusals;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every reason renders as SPEC.md's table says: status, header, JSON body with a hint. */
class RefusalsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "BAD_REQUEST, 400", "HOST_NOT_ALLOWED, 403", "PORT_NOT_ALLOWED, 403", "METHOD_NOT_ALLOWED, 403",
        "PATH_NOT_ALLOWED, 403", "ADDRESS_NOT_ALLOWED, 403", "CREDENTIAL_ENDPOINT_MISMATCH, 403", "SECRET_LEAK, 403",
        "PLAINTEXT_CREDENTIAL, 403", "METHOD_REFUSED, 405", "HOST_MISMATCH, 421", "HEADERS_TOO_LARGE, 431",
        "HEADER_TIMEOUT, 408", "DNS_FAILURE, 502", "UPSTREAM_UNREACHABLE, 502", "UPSTREAM_TLS_ERROR, 502",
        "CREDENTIAL_UNAVAILABLE, 503", "OVERLOADED, 503", "UPSTREAM_TIMEOUT, 504",
    })
    void everyReasonHasItsStatusHeaderAndBody(Reason reason, int status) throws Exception {
        FullHttpResponse response = RefusalResponses.render(Refusals.of(reason, "api.example.org", "P2", null), "P2", false);
        try {
            assertEquals(status, response.status().code());
            assertEquals(reason.code(), response.headers().get("X-Mesa-Egress-Reason"));
            assertEquals("application/json", response.headers().get("Content-Type"));
            JsonNode body = new ObjectMapper().readTree(response.content().toString(StandardCharsets.UTF_8));
            assertEquals(reason.code(), body.get("reason").asText());
            assertEquals("api.example.org", body.get("host").asText());
            assertEquals("P2", body.get("profile").asText());
            assertFalse(body.get("error").asText().isBlank());
            assertFalse(body.get("hint").asText().isBlank());
            assertEquals(response.content().readableBytes(), response.headers().getInt("Content-Length"));
        } finally {
            response.release();
        }
    }
}
