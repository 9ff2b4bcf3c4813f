package org.cyverse.mesa.egress.injector.oauth2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.function.UnaryOperator;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * A token endpoint's error answer (RFC 6749 section 5.2, RFC 8693 section 2.2.2, RFC 7009
 * section 2.2.1) as the message an operator reads in the log and the agent reads in its 503:
 * the status, the {@code error} code, the server's description, and what it means here.
 * {@code invalid_grant} means the grant itself is gone (the user's session revoked or expired, a
 * refresh token already used): the exception is then {@linkplain SecretUnavailableException#revoked()
 * revoked}, and the store drops the token it holds at once rather than serving it to its end.
 */
final class OAuth2Errors {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LONGEST_DESCRIPTION = 200;

    private OAuth2Errors() {}

    static SecretUnavailableException of(String where, int status, String body, Grant grant, String audience, UnaryOperator<String> scrub) {
        String error = null;
        String description = null;
        try {
            JsonNode json = JSON.readTree(body);
            if (json != null && json.isObject()) {
                error = json.path("error").asText(null);
                description = json.path("error_description").asText(null);
            }
        } catch (IOException e) {
            // not JSON: a gateway's error page; the status says enough
        }
        StringBuilder message = new StringBuilder(where).append(": answered ").append(status);
        if (error != null) {
            message.append(' ').append(scrub.apply(printable(error, 64)));
        }
        if (description != null) {
            message.append(" (\"").append(scrub.apply(printable(description, LONGEST_DESCRIPTION))).append("\")");
        }
        String meaning = meaning(error, status, grant, audience);
        if (meaning != null) {
            message.append(": ").append(meaning);
        }
        return new SecretUnavailableException(message.toString(), "invalid_grant".equals(error), null);
    }

    private static String meaning(String error, int status, Grant grant, String audience) {
        if (error == null) {
            return status >= 500 ? "the issuer failed; retried with back-off" : null;
        }
        return switch (error) {
            case "invalid_grant" -> switch (grant) {
                case REFRESH_TOKEN -> "the user's session was revoked or expired (or the refresh token was already used);"
                        + " a new refresh token must be configured";
                case TOKEN_EXCHANGE -> "the subject token was refused (expired, revoked, or not meant for this client)";
                case JWT_BEARER -> "the assertion was refused (expired, wrong audience, or not trusted by the issuer)";
                case CLIENT_CREDENTIALS -> "the issuer refused the grant";
            };
            case "invalid_client" -> "the client's authentication failed: check client_id and its secret or key at the issuer";
            case "unauthorized_client" -> "the client may not use the " + grant.key() + " grant: enable it for the client at the issuer";
            case "unsupported_grant_type" -> "the issuer does not offer the " + grant.key() + " grant";
            case "invalid_scope" -> "the issuer will not grant the configured scope";
            case "invalid_target", "invalid_request" -> audience == null ? null
                    : "the issuer will not issue a token for audience " + audience + " (check the client's token-exchange permission)";
            default -> null;
        };
    }

    /** {@code text} cut to {@code max} characters, control characters replaced: it goes into log lines and JSON. */
    private static String printable(String text, int max) {
        String cut = text.length() > max ? text.substring(0, max) + "..." : text;
        StringBuilder sb = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> sb.appendCodePoint(c < 0x20 || c == 0x7f ? '?' : c));
        return sb.toString();
    }
}
