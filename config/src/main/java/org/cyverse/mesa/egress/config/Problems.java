package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Collects every problem of one file instead of stopping at the first: {@code validate} should
 * let a person fix a file in one pass.
 */
final class Problems {

    private final String file;
    private final List<ConfigProblem> problems = new ArrayList<>();

    /** @param file the file as the user named it */
    Problems(String file) {
        this.file = file;
    }

    void add(int line, String key, String message) {
        problems.add(new ConfigProblem(file, line, key, message));
    }

    boolean isEmpty() {
        return problems.isEmpty();
    }

    int size() {
        return problems.size();
    }

    /** In file order; problems found at one line keep the order they were found in. */
    List<ConfigProblem> sorted() {
        List<ConfigProblem> copy = new ArrayList<>(problems);
        copy.sort(Comparator.comparingInt(ConfigProblem::line));
        return copy;
    }
}
