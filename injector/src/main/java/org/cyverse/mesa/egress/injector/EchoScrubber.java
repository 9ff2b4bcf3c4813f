package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Response scrubbing as it stood at one moment: every form of every value each credential had
 * held, and every Basic form the proxy had written, to the stand-in's same form. An exchange
 * takes one when its request leaves ({@link Injector#echoScrubber()}), so that the forms its own
 * request was written in are in it whatever is noted (or forgotten) before the answer comes.
 * Immutable; each body gets its own replacer.
 */
public final class EchoScrubber {

    private final Map<String, String> plain;
    private final Map<String, String> text;
    private final StreamReplacer.Patterns patterns;

    EchoScrubber(Map<String, String> plain, Map<String, String> text, StreamReplacer.Patterns patterns) {
        this.plain = plain;
        this.text = text;
        this.patterns = patterns;
    }

    /** Whether there is nothing to scrub (no credential has a value yet). */
    public boolean isEmpty() {
        return text.isEmpty();
    }

    /** A replacer for one body: split-safe, streaming. */
    public StreamReplacer newReplacer() {
        return patterns.newReplacer();
    }

    /**
     * A header (or trailer) value with every form replaced, and also where a value is
     * percent-encoded in any mix of plain and encoded characters (a {@code Location} quoting the
     * request's query).
     */
    public String headerValue(String value) {
        if (text.isEmpty()) {
            return value;
        }
        String out = HeaderRewrite.replaceAll(value, text);
        if (out.indexOf('%') < 0) {
            return out;
        }
        PercentText decoded = PercentText.of(out);
        for (Map.Entry<String, String> e : plain.entrySet()) {
            String needle = PercentText.bytes(e.getKey());
            if (decoded.decoded().contains(needle)) {
                out = decoded.replace(needle, PercentText.encode(e.getValue()));
                decoded = PercentText.of(out);
            }
        }
        return out;
    }

    /**
     * This scrubbing and {@code later}'s together: an exchange keeps the one taken when its request
     * left (a form noted then may have been forgotten since) and adds the one of the moment its
     * answer comes (a form noted since, for its trailers). Itself when {@code later} adds nothing,
     * as in the steady state, where both are the same object.
     */
    public EchoScrubber merged(EchoScrubber later) {
        if (later == this || later.text.equals(text)) {
            return this;
        }
        if (text.isEmpty()) {
            return later;
        }
        Map<String, String> allText = new LinkedHashMap<>(text);
        later.text.forEach(allText::putIfAbsent);
        Map<String, String> allPlain = new LinkedHashMap<>(plain);
        later.plain.forEach(allPlain::putIfAbsent);
        Map<byte[], byte[]> bytes = new LinkedHashMap<>();
        allText.forEach((form, standIn) -> bytes.put(form.getBytes(StandardCharsets.UTF_8),
                standIn.getBytes(StandardCharsets.UTF_8)));
        return new EchoScrubber(Collections.unmodifiableMap(allPlain), Collections.unmodifiableMap(allText),
                StreamReplacer.compile(bytes));
    }

    /** The forms to stand-ins (for the case-insensitive scrub of answers). */
    Map<String, String> text() {
        return text;
    }
}
