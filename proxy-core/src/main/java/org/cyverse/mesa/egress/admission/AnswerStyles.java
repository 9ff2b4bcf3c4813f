package org.cyverse.mesa.egress.admission;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cyverse.mesa.egress.injector.AnswerStyle;

/**
 * A refusal in the form its client shows a person, as a credential kind said the client reads it
 * ({@link org.cyverse.mesa.egress.injector.RequestUse#answerStyle}): git prints a
 * {@code text/plain} error body as {@code remote: ...} lines (http.c, {@code show_http_message});
 * {@code gh} and other REST clients print a JSON error's {@code message}.
 */
public final class AnswerStyles {

    private AnswerStyles() {}

    /** {@code refusal} answered in {@code style}: the same status, reason and facts. */
    public static Refusal styled(Refusal refusal, AnswerStyle style) {
        return switch (style) {
            case JSON -> refusal;
            case PLAIN_TEXT -> {
                String text = "mesa-egress: " + refusal.reason().code() + ": " + refusal.error() + "\nmesa-egress: hint: " + refusal.hint()
                        + "\n";
                yield refusal.answeredAs(new Refusal.Answer(refusal.status(), "text/plain; charset=utf-8",
                        text.getBytes(StandardCharsets.UTF_8)));
            }
            case JSON_MESSAGE -> {
                Map<String, Object> details = new LinkedHashMap<>(refusal.details());
                details.put("message", refusal.error() + "; " + refusal.hint());
                yield new Refusal(refusal.status(), refusal.reason(), refusal.error(), refusal.host(), refusal.hint(), refusal.rule(),
                        refusal.retryAfterSeconds(), details);
            }
        };
    }
}
