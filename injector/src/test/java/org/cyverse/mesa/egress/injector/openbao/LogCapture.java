package org.cyverse.mesa.egress.injector.openbao;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Captures every java.util.logging record (all levels, with stack traces), so a test can assert
 * that no token, JWT or secret value reached a log line.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    private final StringBuilder text = new StringBuilder();
    private final SimpleFormatter format = new SimpleFormatter();
    private final Level before;
    /** Held: the JDK keeps loggers weakly, and a collected one would forget the level set here. */
    private final Logger ours = Logger.getLogger("org.cyverse");

    public LogCapture() {
        setLevel(Level.ALL);
        Logger.getLogger("").addHandler(this);
        before = ours.getLevel();
        ours.setLevel(Level.ALL);
    }

    @Override
    public synchronized void publish(LogRecord record) {
        text.append(format.format(record));
    }

    public synchronized String text() {
        return text.toString();
    }

    /** Fails when any of {@code secrets} appears in what was logged. */
    public void assertNoneOf(String... secrets) {
        String all = text();
        for (String secret : secrets) {
            assertFalse(all.contains(secret), "a token, JWT or secret value reached the log");
        }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
        ours.setLevel(before);
    }
}
