package org.cyverse.mesa.egress.launcher;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Runs launcher commands in-process, as {@code bin/mesa-egress} would, with a temporary directory for files. */
abstract class CommandTestBase {

    @TempDir
    Path dir;

    private final CommandRun command = new CommandRun();

    int run(String... args) {
        return command.run(args);
    }

    String out() {
        return command.out();
    }

    String err() {
        return command.err();
    }

    void reset() {
        command.reset();
    }
}
