package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What stands in for a secret wherever the proxy passes or shows text: in responses the
 * credential's sentinel (the client gets back what it sent), in log lines and audit records
 * {@code [redacted:NAME]}. Every value each credential has held counts, in each of its forms
 * ({@link SecretForms}, {@link EmittedForms}). The tables are rebuilt only when the store has a new
 * value or the injector wrote a new form; thread-safe.
 */
final class SecretScrubbing {

    private final List<CredentialSpec> credentials;
    private final SecretValues store;
    private final EmittedForms emitted;

    SecretScrubbing(List<CredentialSpec> credentials, SecretValues store, EmittedForms emitted) {
        this.credentials = credentials;
        this.store = store;
        this.emitted = emitted;
    }

    /**
     * A replacer for responses: every value a credential has held becomes its sentinel (or
     * {@code [redacted:NAME]} when it has none), in each form the proxy wrote it or an echo
     * commonly spells it ({@link SecretForms}, and the Basic credentials it wrote), so an upstream
     * that echoes a key does not hand it to the agent.
     */
    StreamReplacer responseScrubber() {
        return tables().patterns().newReplacer();
    }

    /**
     * {@code value} with every secret replaced as {@link #responseScrubber()} does, and also where
     * it appears in another letter case (a host name is lowercased before it is decided: a key
     * sent as a host label comes back in lowercase).
     */
    String scrub(String value) {
        return replaceIgnoringCase(scrubHeaderValue(value), tables().text());
    }

    /**
     * {@code text} with every value a credential has held, in any of its forms and any letter
     * case, replaced by {@code [redacted:NAME]}: for log lines, where a sentinel in place of the
     * value would read as if the client had sent it.
     */
    String redact(String text) {
        Tables current = tables();
        if (text == null || current.redactions().isEmpty()) {
            return text;
        }
        String out = HeaderRewrite.replaceAll(text, current.redactions());
        if (out.indexOf('%') >= 0) {
            PercentText decoded = PercentText.of(out);
            for (Map.Entry<String, String> e : current.names().entrySet()) {
                String needle = PercentText.bytes(e.getKey());
                if (decoded.decoded().contains(needle)) {
                    out = decoded.replace(needle, "[redacted:" + e.getValue() + "]");
                    decoded = PercentText.of(out);
                }
            }
        }
        return replaceIgnoringCase(out, current.redactions());
    }

    /**
     * {@code [redacted:NAME]} when {@code field} holds a value credential NAME has held (in any
     * form or letter case), else {@code field} itself: for the audit record, whose fields are
     * either a fact or withheld, never half of one.
     */
    String redactField(String field) {
        Tables current = tables();
        if (field == null || current.redactions().isEmpty()) {
            return field;
        }
        String lower = field.toLowerCase(Locale.ROOT);
        String decoded = field.indexOf('%') >= 0 ? PercentText.decode(field).toLowerCase(Locale.ROOT) : null;
        for (Map.Entry<String, String> e : current.names().entrySet()) {
            String needle = e.getKey().toLowerCase(Locale.ROOT);
            if (field.contains(e.getKey()) || lower.contains(needle)
                    || decoded != null && decoded.contains(PercentText.bytes(e.getKey()).toLowerCase(Locale.ROOT))) {
                return "[redacted:" + e.getValue() + "]";
            }
        }
        return field;
    }

    /** {@code value} with every key of {@code replacements} replaced, in any letter case. */
    private static String replaceIgnoringCase(String value, Map<String, String> replacements) {
        String out = value;
        String lower = out.toLowerCase(Locale.ROOT);
        if (lower.length() != out.length()) {
            return out; // letters whose case changes the length: the exact replacement before this is what holds
        }
        for (Map.Entry<String, String> e : replacements.entrySet()) {
            String needle = e.getKey().toLowerCase(Locale.ROOT);
            int from = 0;
            int at;
            while (!needle.isEmpty() && (at = lower.indexOf(needle, from)) >= 0) {
                out = out.substring(0, at) + e.getValue() + out.substring(at + needle.length());
                lower = out.toLowerCase(Locale.ROOT);
                from = at + e.getValue().length();
            }
        }
        return out;
    }

    /**
     * A header value with every secret replaced as {@link #responseScrubber()} does, and also where
     * it is percent-encoded in any mix of plain and encoded characters (a redirect's
     * {@code Location} quoting the request's query).
     */
    String scrubHeaderValue(String value) {
        Tables current = tables();
        if (current.text().isEmpty()) {
            return value;
        }
        String out = HeaderRewrite.replaceAll(value, current.text());
        if (out.indexOf('%') < 0) {
            return out;
        }
        PercentText text = PercentText.of(out);
        for (Map.Entry<String, String> e : current.plain().entrySet()) {
            String needle = PercentText.bytes(e.getKey());
            if (text.decoded().contains(needle)) {
                out = text.replace(needle, PercentText.encode(e.getValue()));
                text = PercentText.of(out);
            }
        }
        return out;
    }

    /**
     * Every form of every value each credential has held ({@link SecretForms}, {@link EmittedForms})
     * to its stand-in's same form, and the plain values alone; rebuilt only when the store has a new
     * value or the proxy wrote a new form.
     */
    private record Tables(long generation, long emittedVersion, Map<String, String> plain, Map<String, String> text,
            StreamReplacer.Patterns patterns, Map<String, String> names, Map<String, String> redactions) {}

    private volatile Tables tables;

    private Tables tables() {
        long generation = store.generation();
        long emittedVersion = emitted.version();
        Tables current = tables;
        if (current != null && current.generation() == generation && current.emittedVersion() == emittedVersion) {
            return current;
        }
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, String> text = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, String> redactions = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            String standIn = c.sentinel() != null ? c.sentinel() : "[redacted:" + c.name() + "]";
            for (Secret secret : store.held(c.name())) {
                plain.putIfAbsent(secret.reveal(), standIn);
                names.putIfAbsent(secret.reveal(), c.name());
                SecretForms.of(secret.reveal(), standIn).forEach(text::putIfAbsent);
                SecretForms.of(secret.reveal(), "[redacted:" + c.name() + "]").forEach(redactions::putIfAbsent);
            }
        }
        if (!text.isEmpty()) {
            emitted.snapshot().forEach(text::putIfAbsent);
        }
        Map<byte[], byte[]> bytes = new LinkedHashMap<>();
        text.forEach((secret, standIn) -> bytes.put(secret.getBytes(StandardCharsets.UTF_8), standIn.getBytes(StandardCharsets.UTF_8)));
        current = new Tables(generation, emittedVersion, java.util.Collections.unmodifiableMap(plain),
                java.util.Collections.unmodifiableMap(text), StreamReplacer.compile(bytes), java.util.Collections.unmodifiableMap(names),
                java.util.Collections.unmodifiableMap(redactions));
        tables = current;
        return current;
    }
}
