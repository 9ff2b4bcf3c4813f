package org.cyverse.mesa.egress.injector;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
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

    /** The scrubbing of responses as it stands now. */
    EchoScrubber echo() {
        return tables().echo();
    }

    /**
     * {@code value} with every secret replaced as a response header is, and also where it appears
     * in another letter case (a host name is lowercased before it is decided: a key sent as a host
     * label comes back in lowercase).
     */
    String scrub(String value) {
        EchoScrubber echo = echo();
        return replaceIgnoringCase(echo.headerValue(value), echo.text());
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
            for (Needle n : current.needles()) {
                if (decoded.decoded().contains(n.bytes())) {
                    out = decoded.replace(n.bytes(), n.redacted());
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
        if (field == null || current.needles().isEmpty()) {
            return field;
        }
        String lower = field.toLowerCase(Locale.ROOT);
        String decoded = field.indexOf('%') >= 0 ? PercentText.decode(field).toLowerCase(Locale.ROOT) : null;
        for (Needle n : current.needles()) {
            if (field.contains(n.text()) || lower.contains(n.lower()) || decoded != null && decoded.contains(n.lowerBytes())) {
                return n.redacted();
            }
        }
        for (Map.Entry<String, String> e : current.redactions().entrySet()) {
            if (lower.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                return e.getValue(); // a written Basic form, or another spelling of a value
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

    /** A value a credential has held, in the spellings a redaction compares, with its mark. */
    private record Needle(String text, String lower, String bytes, String lowerBytes, String redacted) {
        static Needle of(String value, String credential) {
            String bytes = PercentText.bytes(value);
            return new Needle(value, value.toLowerCase(Locale.ROOT), bytes, bytes.toLowerCase(Locale.ROOT), "[redacted:" + credential + "]");
        }
    }

    /**
     * What scrubbing and redaction compare, for one generation of the store's values and of the
     * written forms: the responses' {@link EchoScrubber}, each plain value as a {@link Needle},
     * and every form (written Basic forms included) to {@code [redacted:NAME]}.
     */
    private record Tables(long generation, long emittedVersion, EchoScrubber echo, List<Needle> needles, Map<String, String> redactions) {}

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
        List<Needle> needles = new ArrayList<>();
        Map<String, String> redactions = new LinkedHashMap<>();
        for (CredentialSpec c : credentials) {
            String kindStandIn = c.kind() == null ? null : c.kind().standIn(c);
            String standIn = kindStandIn != null ? kindStandIn : c.sentinel() != null ? c.sentinel() : "[redacted:" + c.name() + "]";
            if (c.kind() != null) { // values beside the secret that an answer may echo (an S3 error's access key id)
                c.kind().echoes(c, store).forEach((value, echoStandIn) -> {
                    plain.putIfAbsent(value, echoStandIn);
                    SecretForms.of(value, echoStandIn).forEach(text::putIfAbsent);
                });
            }
            for (Secret secret : store.held(c.name())) {
                if (plain.putIfAbsent(secret.reveal(), standIn) == null) {
                    needles.add(Needle.of(secret.reveal(), c.name()));
                }
                SecretForms.of(secret.reveal(), standIn).forEach(text::putIfAbsent);
                SecretForms.encoded(secret.reveal(), standIn).forEach(text::putIfAbsent);
                SecretForms.of(secret.reveal(), "[redacted:" + c.name() + "]").forEach(redactions::putIfAbsent);
            }
        }
        if (!text.isEmpty()) {
            // A written Basic form is base64, whose '/', '+' and '=' an echo may escape or encode too.
            for (EmittedForms.Form form : emitted.snapshot()) {
                SecretForms.of(form.written(), form.sent()).forEach(text::putIfAbsent);
                SecretForms.of(form.written(), "[redacted:" + form.credential() + "]").forEach(redactions::putIfAbsent);
            }
        }
        Map<byte[], byte[]> bytes = new LinkedHashMap<>();
        text.forEach((secret, standIn) -> bytes.put(secret.getBytes(StandardCharsets.UTF_8), standIn.getBytes(StandardCharsets.UTF_8)));
        EchoScrubber echo = new EchoScrubber(Collections.unmodifiableMap(plain), Collections.unmodifiableMap(text),
                StreamReplacer.compile(bytes));
        current = new Tables(generation, emittedVersion, echo, List.copyOf(needles), Collections.unmodifiableMap(redactions));
        tables = current;
        return current;
    }
}
