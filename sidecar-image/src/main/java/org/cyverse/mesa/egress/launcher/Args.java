package org.cyverse.mesa.egress.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flags and positional arguments of one command: {@code --name value} or
 * {@code --name=value}; anything else is positional.
 */
final class Args {

    final Map<String, String> flags = new LinkedHashMap<>();
    final List<String> positional = new ArrayList<>();
    /** Flag name to the environment variable that supplied it (see {@link EnvironmentFlags}). */
    final Map<String, String> fromEnvironment = new LinkedHashMap<>();

    /** @throws UsageException for an unknown flag or a flag without its value */
    static Args parse(List<String> args, Set<String> known) throws UsageException {
        Args parsed = new Args();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                parsed.positional.add(arg);
                continue;
            }
            String name = arg;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException(name + " needs a value");
            }
            if (!known.contains(name)) {
                throw new UsageException("unknown flag " + name + " (known: " + String.join(", ", known) + ")");
            }
            parsed.flags.put(name, value);
        }
        return parsed;
    }

    String flag(String name) {
        return flags.get(name);
    }

    /** Where the flag's value came from, for error messages: the flag, or the variable that stood in for it. */
    String origin(String name) {
        String variable = fromEnvironment.get(name);
        return variable == null ? name : "environment variable " + variable;
    }

    /** A mistake on the command line; the message says what is wrong. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }
}
