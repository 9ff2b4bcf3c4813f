package org.cyverse.mesa.egress.config;

import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns SnakeYAML's syntax errors (as Jackson's YAML parser passes them on) into a line, a column
 * and a hint a person can act on. SnakeYAML names the construct it was in ("while parsing a flow
 * sequence") and where it gave up, which for an unclosed bracket or quote is the end of the file:
 * the line worth reading is where the construct opened, so that is the line reported.
 */
final class YamlSyntax {

    private YamlSyntax() {}

    /** The line (1-based) and the message for SnakeYAML's exception. */
    record Described(int line, String message) {}

    static Described describe(MarkedYAMLException e) {
        String context = e.getContext() == null ? "" : e.getContext();
        String problem = e.getProblem() == null ? "cannot be parsed" : e.getProblem();
        Mark opened = e.getContextMark();
        Mark at = e.getProblemMark() != null ? e.getProblemMark() : opened;
        if (problem.contains("\\t") || problem.contains("(TAB)")) {
            return at(at, "a tab cannot indent YAML: indent with spaces (two per level, as in the examples)");
        }
        if (opened != null && context.contains("flow sequence")) {
            return at(opened, "the list opened with '[' here is not closed (" + gaveUp(problem, at)
                    + "): close it with ']', or quote a value that holds ',', ']' or '#'");
        }
        if (opened != null && context.contains("flow mapping")) {
            return at(opened, "the map opened with '{' here is not closed (" + gaveUp(problem, at)
                    + "): close it with '}', or quote a value that holds ',', '}' or '#'");
        }
        if (opened != null && context.contains("quoted scalar")) {
            return at(opened, "the quoted string that starts here has no closing quote (" + gaveUp(problem, at) + ")");
        }
        if (opened != null && context.contains("simple key") && problem.contains("':'")) {
            return at(opened, "this line is neither \"key: value\" nor a list item: write a ':' and a space after the key");
        }
        if (problem.contains("mapping values are not allowed")) {
            return at(at, "a ':' here cannot start a value: indent this line like the key above it, or quote a value"
                    + " that holds \": \"");
        }
        if (problem.contains("block end") || context.contains("block mapping") || context.contains("block collection")) {
            return at(at, problem + ": check this line's indentation against the lines above it");
        }
        return at(at, (context.isEmpty() ? "" : context + ": ") + problem);
    }

    private static Described at(Mark mark, String message) {
        if (mark == null) {
            return new Described(0, message);
        }
        return new Described(mark.getLine() + 1, "column " + (mark.getColumn() + 1) + ": " + message);
    }

    /** Where the parser gave up: the end of the file, or a line. */
    private static String gaveUp(String problem, Mark at) {
        if (problem.contains("stream end") || problem.contains("end of stream")) {
            return "the file ends before it is closed";
        }
        return at == null ? problem : problem + " on line " + (at.getLine() + 1);
    }
}
