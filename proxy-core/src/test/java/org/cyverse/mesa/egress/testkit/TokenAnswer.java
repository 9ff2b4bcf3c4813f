package org.cyverse.mesa.egress.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.JWTClaimsSet;

/** A token endpoint answer from {@link Keycloak}: the HTTP status and the JSON body (RFC 6749 sections 5.1 and 5.2). */
public record TokenAnswer(int status, JsonNode json) {

    public boolean ok() {
        return status == 200;
    }

    public String accessToken() {
        return text("access_token");
    }

    public String refreshToken() {
        return text("refresh_token");
    }

    /** The OAuth error code (RFC 6749 section 5.2), e.g. invalid_grant; null on success. */
    public String error() {
        return text("error");
    }

    public String errorDescription() {
        return text("error_description");
    }

    public long expiresIn() {
        return json.path("expires_in").asLong(-1);
    }

    public String text(String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    /** The access token's claims, unverified (for assertions; BearerCheckingUpstream verifies). */
    public JWTClaimsSet accessClaims() {
        return Keycloak.claims(accessToken());
    }

    @Override
    public String toString() {
        return status + " " + json;
    }
}
