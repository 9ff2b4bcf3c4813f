package org.cyverse.mesa.egress.proxy.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.approval.Approval;
import org.cyverse.mesa.egress.approval.ApprovalBook;
import org.cyverse.mesa.egress.approval.ApprovalJson;
import org.cyverse.mesa.egress.approval.ApprovalScope;
import org.cyverse.mesa.egress.approval.ApprovalTtl;
import org.cyverse.mesa.egress.proxy.approval.ApprovalInbox;

/**
 * The inbox's admin calls (SPEC.md "Admin endpoints"), reached only once {@link AdminCalls} checked
 * the admin token: {@code GET /approvals}, {@code POST /approvals/{id}/approve} with
 * {@code {"scope": {...}, "ttl": "1h" | "job"}}, {@code POST /approvals/{id}/deny}. Answers 200,
 * 400 (naming the field), 404 or 410, with a JSON body.
 */
final class ApprovalCalls {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DECIDE = Pattern.compile("/approvals/(apr_[0-9a-f]{1,64})/(approve|deny)");

    private final ApprovalInbox inbox;

    ApprovalCalls(ApprovalInbox inbox) {
        this.inbox = inbox;
    }

    /** Whether {@code path} is the inbox's. */
    static boolean handles(String path) {
        return path.equals("/approvals") || path.startsWith("/approvals/");
    }

    FullHttpResponse answer(HttpMethod method, String path, FullHttpRequest request, String caller) {
        if (!inbox.enabled()) {
            return error(HttpResponseStatus.NOT_FOUND, "the approval inbox is off: set approvals.enabled (A1 profiles, P1 and P2)");
        }
        ApprovalBook book = inbox.book();
        if (path.equals("/approvals")) {
            if (!HttpMethod.GET.equals(method)) {
                return error(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET /approvals lists; POST /approvals/{id}/approve or /deny decides");
            }
            ArrayNode list = JSON.createArrayNode();
            book.list().forEach(a -> list.add(ApprovalJson.of(a)));
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("pending", book.pending());
            body.put("approvals", list);
            return AdminResponses.json(HttpResponseStatus.OK, body);
        }
        Matcher m = DECIDE.matcher(path);
        if (!m.matches() || !HttpMethod.POST.equals(method)) {
            return error(HttpResponseStatus.NOT_FOUND, "not found; GET /approvals, POST /approvals/{id}/approve, POST /approvals/{id}/deny");
        }
        String id = m.group(1);
        ApprovalBook.Result result;
        if (m.group(2).equals("deny")) {
            result = book.deny(id, caller);
        } else {
            ApprovalScope scope;
            Duration ttl;
            try {
                JsonNode body = JSON.readTree(request.content().toString(StandardCharsets.UTF_8));
                if (body == null || !body.isObject()) {
                    throw new IllegalArgumentException("the body must be a JSON object: {\"ttl\": \"1h\"} or {\"scope\": {...}, \"ttl\": \"job\"}");
                }
                for (var names = body.fieldNames(); names.hasNext(); ) {
                    String name = names.next();
                    if (!name.equals("scope") && !name.equals("ttl")) {
                        throw new IllegalArgumentException(name + " is unknown (scope, ttl)");
                    }
                }
                if (!body.path("ttl").isTextual()) {
                    throw new IllegalArgumentException("ttl is required: a duration such as \"1h\", or \"job\" for the rest of the job");
                }
                ttl = ApprovalTtl.parse(body.get("ttl").asText());
                scope = body.hasNonNull("scope") ? ApprovalJson.readScope(body.get("scope"), "scope") : null;
            } catch (IllegalArgumentException e) {
                return error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                return error(HttpResponseStatus.BAD_REQUEST, "the body is not JSON: " + e.getOriginalMessage());
            }
            result = book.approve(id, scope, ttl, caller);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put(result.status() == 200 ? "result" : "error", result.message());
        Approval a = result.approval();
        if (a != null) {
            body.put("approval", ApprovalJson.of(a));
        }
        return AdminResponses.json(HttpResponseStatus.valueOf(result.status()), body);
    }

    private static FullHttpResponse error(HttpResponseStatus status, String message) {
        return AdminResponses.json(status, Map.of("error", message));
    }
}
