package org.cyverse.mesa.egress.proxy.observe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * The one place log lines pass before they are written: every value a credential of a running
 * proxy has held, in any form or letter case, becomes {@code [redacted:NAME]}, whatever logged it
 * (a TLS server name, a Host field, an exception quoting a request). java.util.logging is global
 * to the process, so this is too: each running {@link org.cyverse.mesa.egress.proxy.server.ProxyServer} adds its redaction while it
 * serves ({@link #add}), and the launcher's formatter is wrapped in {@link #formatter}.
 */
public final class LogRedaction {

    private static final List<UnaryOperator<String>> REDACTIONS = new CopyOnWriteArrayList<>();

    private LogRedaction() {}

    /** Adds a running proxy's redaction; running the returned handle removes it. */
    public static Runnable add(UnaryOperator<String> redaction) {
        REDACTIONS.add(redaction);
        return () -> REDACTIONS.remove(redaction);
    }

    /** {@code line} with every running proxy's secret values redacted. */
    public static String redact(String line) {
        String out = line;
        for (UnaryOperator<String> redaction : REDACTIONS) {
            out = redaction.apply(out);
        }
        return out;
    }

    /** {@code inner}, with every line it formats redacted (message, parameters and stack trace alike). */
    public static Formatter formatter(Formatter inner) {
        return new Formatter() {
            @Override
            public String format(LogRecord record) {
                return redact(inner.format(record));
            }

            @Override
            public String getHead(java.util.logging.Handler h) {
                return inner.getHead(h);
            }

            @Override
            public String getTail(java.util.logging.Handler h) {
                return inner.getTail(h);
            }
        };
    }
}
