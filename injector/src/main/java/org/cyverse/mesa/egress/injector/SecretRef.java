package org.cyverse.mesa.egress.injector;

/**
 * Where a credential's secret comes from (SPEC.md "Secret references"):
 * {@code file:PATH} (whole file, trimmed), {@code file:PATH#KEY} (top-level key of a YAML or JSON
 * map), {@code env:NAME}, {@code openbao:PATH#FIELD}.
 *
 * @param scheme {@code file}, {@code env} or {@code openbao}
 * @param location the path or variable name
 * @param key the key or field after {@code #}, or {@code null}
 */
public record SecretRef(String scheme, String location, String key) {

    /** @throws IllegalArgumentException naming the problem (unknown scheme, missing field, ...) */
    public static SecretRef parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected SCHEME:REFERENCE (file:, env: or openbao:), got \"" + text + "\"");
        }
        String scheme = text.substring(0, colon);
        String rest = text.substring(colon + 1);
        int hash = rest.indexOf('#');
        String location = hash < 0 ? rest : rest.substring(0, hash);
        String key = hash < 0 ? null : rest.substring(hash + 1);
        if (location.isEmpty()) {
            throw new IllegalArgumentException("\"" + text + "\" names no " + (scheme.equals("env") ? "variable" : "path"));
        }
        if (key != null && key.isEmpty()) {
            throw new IllegalArgumentException("\"" + text + "\" has an empty key after #");
        }
        switch (scheme) {
            case "file":
                break;
            case "env":
                if (key != null) {
                    throw new IllegalArgumentException("env: takes a variable name only, not #KEY: \"" + text + "\"");
                }
                break;
            case "openbao":
                if (key == null) {
                    throw new IllegalArgumentException("openbao: needs PATH#FIELD: \"" + text + "\"");
                }
                break;
            default:
                throw new IllegalArgumentException("unknown secret scheme \"" + scheme + "\" (expected file:, env: or openbao:)");
        }
        return new SecretRef(scheme, location, key);
    }

    @Override
    public String toString() {
        return scheme + ":" + location + (key == null ? "" : "#" + key);
    }
}
