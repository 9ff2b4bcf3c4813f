package org.cyverse.mesa.egress.config;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${VAR}} in a config value, expanded from the proxy's environment once, when the file is
 * read: one config template serves every job (the job's id in LiteLLM metadata, the job's branch).
 */
final class EnvironmentText {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private EnvironmentText() {}

    /**
     * {@code text} with every {@code ${VAR}} replaced; an unset variable is reported at {@code line}
     * of {@code key} and the result is then {@code null}.
     */
    static String expand(MapReader reader, int line, String key, String text, Map<String, String> environment) {
        StringBuilder out = new StringBuilder();
        Matcher m = VARIABLE.matcher(text);
        boolean ok = true;
        while (m.find()) {
            String value = environment.get(m.group(1));
            if (value == null) {
                reader.problems().add(line, key, "${" + m.group(1) + "} is not set in the proxy's environment");
                ok = false;
                value = "";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return ok ? out.toString() : null;
    }
}
