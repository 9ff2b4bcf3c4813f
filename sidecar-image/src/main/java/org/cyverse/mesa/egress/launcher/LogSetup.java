package org.cyverse.mesa.egress.launcher;

import java.util.Locale;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.cyverse.mesa.egress.proxy.observe.LogRedaction;

/**
 * One line per log record on stderr (stdout may carry the audit log, and {@code check}'s JSON):
 * {@code 2026-11-29T17:00:00.000Z INFO ProxyServer: message}. {@code MESA_EGRESS_LOG_LEVEL}
 * (e.g. FINE) raises the detail.
 */
final class LogSetup {

    private LogSetup() {}

    static void install() {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        LogManager.getLogManager().reset();
        Level level = Level.INFO;
        String wanted = System.getenv("MESA_EGRESS_LOG_LEVEL");
        if (wanted != null && !wanted.isBlank()) {
            try {
                level = Level.parse(wanted.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                System.err.println("mesa-egress: ignoring MESA_EGRESS_LOG_LEVEL=" + wanted + " (use SEVERE, WARNING, INFO, FINE)");
            }
        }
        ConsoleHandler handler = new ConsoleHandler();
        // Every line passes the running proxy's redaction of secret values, whatever logged it.
        handler.setFormatter(LogRedaction.formatter(new SimpleFormatter()));
        handler.setLevel(level);
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        root.addHandler(handler);
        // Netty logs through java.util.logging too; its DEBUG chatter stays below INFO.
        Logger.getLogger("io.netty").setLevel(level.intValue() < Level.INFO.intValue() ? level : Level.WARNING);
    }
}
