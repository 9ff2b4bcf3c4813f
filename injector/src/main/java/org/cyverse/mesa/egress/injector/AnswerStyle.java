package org.cyverse.mesa.egress.injector;

/** The forms of a refusal's answer a client shows best ({@link RequestUse#answerStyle}, {@link BodyCheck.Refusal#style}). */
public enum AnswerStyle {
    /** SPEC.md's JSON body. */
    JSON,
    /** The JSON body with a {@code message} (error and hint), which REST clients such as {@code gh} print. */
    JSON_MESSAGE,
    /** Plain text: git prints a {@code text/plain} error body as {@code remote:} lines (http.c, show_http_message). */
    PLAIN_TEXT
}
