package org.cyverse.mesa.egress.injector.github;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.cyverse.mesa.egress.injector.AnswerStyle;
import org.cyverse.mesa.egress.injector.BodyCheck;

/**
 * The branch rule on a REST call that names its branch in its JSON body, as the GitHub MCP
 * server's tools and other API clients commit (GitHub REST docs, API version 2022-11-28):
 * <ul>
 *   <li>{@code PATCH /repos/{o}/{r}/git/refs/heads/{branch}} ("Update a reference"): with
 *       {@code force} false or left out GitHub itself makes sure the update is a fast-forward; a
 *       {@code force: true} (the GitHub MCP server's {@code push_files} sends it for every commit)
 *       is sent as {@code force: false} unless {@code force_push: true}, so GitHub refuses an update
 *       that is not a fast-forward and takes one that is;
 *   <li>{@code POST /repos/{o}/{r}/git/refs} ("Create a reference"): {@code ref} must be the job's branch;
 *   <li>{@code PUT} and {@code DELETE /repos/{o}/{r}/contents/{path}} ("Create or update file
 *       contents", "Delete a file"): {@code branch} must be the job's; without it the default
 *       branch would be written;
 *   <li>{@code POST /repos/{o}/{r}/merges} ("Merge a branch"): {@code base} must be the job's.
 * </ul>
 * The body is read as it streams with Jackson's non-blocking parser, top-level fields only, while
 * the head and the body wait ({@link Status#HOLD}); at its end the field decides. A body that is
 * not one JSON object, that gives the field twice (JSON parsers differ on which one wins), or that
 * is larger than {@value #MAX_BODY} bytes is refused. Not thread-safe.
 */
public final class RestWriteCheck implements BodyCheck {

    /** The most body bytes read for the field (a file of the contents API is in the same body). */
    public static final long MAX_BODY = 16L << 20;
    private static final JsonFactory JSON = new JsonFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The top-level field that names what the call writes. */
    public enum Field {
        FORCE("force"), REF("ref"), BRANCH("branch"), BASE("base"),
        /** Git LFS's batch API ({@code docs/api/batch.md}): {@code download}, or {@code upload} when the job may push. */
        OPERATION("operation");

        private final String key;

        Field(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }
    }

    /**
     * What one call's body is checked against, from the admission.
     *
     * @param call for messages: what the call does ({@code updating refs/heads/agent/job-17})
     * @param ref the ref the path names (an update), or {@code null} when the body names it
     * @param mayPush whether the job's token may write the repository (an LFS upload goes only then)
     */
    public record Plan(String credential, String repository, String call, Field field, String ref, BranchRule rule, boolean mayPush)
            implements BodyCheck.Plan {
        public Plan(String credential, String repository, String call, Field field, String ref, BranchRule rule) {
            this(credential, repository, call, field, ref, rule, true);
        }

        @Override
        public RestWriteCheck start() {
            return new RestWriteCheck(this);
        }
    }

    private final Plan plan;
    /** A ref update's body while it is read whole, to go on with {@code force} false ({@link #rewrite}). */
    private final ByteArrayOutputStream forced = new ByteArrayOutputStream();
    private final JsonParser parser;
    private final ByteArrayFeeder feeder;
    private long read;
    private int depth;
    private int roots;
    private boolean fieldNext;
    private boolean seen;
    /** The field's value: a string, a Boolean, or another token's text; {@code null} while not seen. */
    private Object value;
    private boolean decided;
    private boolean ended;
    private Refusal refusal;

    private RestWriteCheck(Plan plan) {
        this.plan = plan;
        try {
            this.parser = JSON.createNonBlockingByteArrayParser();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        this.feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
    }

    @Override
    public Status inspect(byte[] bytes, boolean last) {
        ended |= last;
        if (!decided) {
            read += bytes.length;
            if (read > MAX_BODY) {
                refuse("bad_request", "the body of " + plan.call() + " is larger than " + (MAX_BODY >> 20) + " MiB, the most the"
                        + " proxy reads to find its " + plan.field().key());
            } else {
                try {
                    feeder.feedInput(bytes, 0, bytes.length);
                    drain();
                    if (last) {
                        feeder.endOfInput();
                        drain();
                        judge();
                    }
                } catch (IOException e) {
                    refuse("bad_request", "the body of " + plan.call() + " is not JSON (" + e.getClass().getSimpleName() + ")");
                }
            }
        }
        if (refusal != null) {
            return ended ? Status.REFUSE : Status.DROP;
        }
        return decided ? Status.CONTINUE : Status.HOLD;
    }

    /** Reads every token the bytes so far complete, keeping the field's value at the top level. */
    private void drain() throws IOException {
        JsonToken t;
        while (refusal == null && (t = parser.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
            if (depth == 0 && (t != JsonToken.START_OBJECT || ++roots > 1)) {
                throw new IOException("not one JSON object");
            }
            if (fieldNext) {
                fieldNext = false;
                if (seen) {
                    refuse("bad_request", "the body of " + plan.call() + " gives " + plan.field().key() + " twice");
                    return;
                }
                seen = true;
                value = t == JsonToken.VALUE_STRING ? parser.getText()
                        : t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE ? Boolean.valueOf(t == JsonToken.VALUE_TRUE)
                        : t.isStructStart() ? t.asString() : parser.getText();
            }
            switch (t) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                case FIELD_NAME -> fieldNext = depth == 1 && parser.currentName().equals(plan.field().key());
                default -> { }
            }
        }
    }

    /** At the body's end: what its field says of the branch. */
    private void judge() {
        if (refusal != null) {
            return;
        }
        if (depth != 0 || roots != 1) {
            refuse("bad_request", "the body of " + plan.call() + " is not one whole JSON object");
            return;
        }
        String why = switch (plan.field()) {
            case FORCE -> value == null || Boolean.FALSE.equals(value) ? null
                    : Boolean.TRUE.equals(value) ? "force: true may rewrite the branch (force pushes are refused: force_push is false)"
                    : "force is not a boolean";
            case REF -> value instanceof String ref ? (ref.startsWith("refs/heads/") ? plan.rule().refusal(ref)
                    : "only " + plan.rule().describe() + " may be created") : "the body names no ref";
            case BRANCH -> value instanceof String branch ? plan.rule().refusal("refs/heads/" + branch)
                    : "without branch it writes the repository's default branch; name the job's branch";
            case BASE -> value instanceof String base ? plan.rule().refusal("refs/heads/" + base) : "the body names no base branch";
            case OPERATION -> "download".equals(value) || "upload".equals(value) && plan.mayPush() ? null
                    : "upload".equals(value) ? "the job may not write " + plan.repository() + " (an upload needs a token that may push)"
                    : "the operation is neither download nor upload";
        };
        decided = true;
        if (why != null) {
            refuse("ref_not_allowed", plan.call() + (plan.ref() == null && value instanceof String v ? " (" + plan.field().key()
                    + " " + v + ")" : "") + " is refused: " + why + " (repository " + plan.repository() + ")");
        }
    }

    private void refuse(String reason, String detail) {
        decided = true;
        refusal = new Refusal(reason, reason.equals("ref_not_allowed") ? plan.credential() : null, detail, AnswerStyle.JSON_MESSAGE,
                null);
    }

    /** A ref update's body goes on rewritten: whole at its end, {@code force} made false. */
    @Override
    public boolean rewrites() {
        return plan.field() == Field.FORCE && !plan.rule().forcePush();
    }

    @Override
    public boolean changesLength() {
        return rewrites();
    }

    /**
     * A ref update's chunks are kept and its whole body goes on with the last: the same JSON object
     * with {@code force} false where it was true (what is then judged is what GitHub gets). A body
     * that is not a JSON object, or past {@value #MAX_BODY} bytes, goes on as it came, to be refused.
     */
    @Override
    public byte[] rewrite(byte[] bytes, boolean last) {
        if (forced.size() + (long) bytes.length > MAX_BODY) {
            return bytes; // judged too large anyway
        }
        forced.write(bytes, 0, bytes.length);
        if (!last) {
            return new byte[0];
        }
        byte[] whole = forced.toByteArray();
        forced.reset();
        try {
            JsonNode body = MAPPER.readTree(whole);
            if (body instanceof ObjectNode object && object.path("force").asBoolean(false)
                    && object.get("force").isBoolean()) {
                object.put("force", false);
                return MAPPER.writeValueAsBytes(object);
            }
        } catch (IOException e) {
            // not JSON: goes on as it came, and inspect refuses it
        }
        return whole;
    }

    @Override
    public boolean reads() {
        return !decided;
    }

    @Override
    public boolean holdsHead() {
        return true;
    }

    @Override
    public Refusal refusal() {
        return refusal;
    }

    /** The ref the call writes, once read (for the audit record), else {@code null}. */
    public List<String> refs() {
        if (plan.ref() != null) {
            return List.of(plan.ref());
        }
        return value instanceof String v && plan.field() != Field.FORCE && plan.field() != Field.OPERATION
                ? List.of(plan.field() == Field.REF ? v : "refs/heads/" + v) : null;
    }

    @Override
    public void close() {
        forced.reset();
        try {
            parser.close();
        } catch (IOException e) {
            // nothing held outside memory
        }
    }
}
