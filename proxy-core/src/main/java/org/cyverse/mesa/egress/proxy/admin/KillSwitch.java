package org.cyverse.mesa.egress.proxy.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The kill switch (CONTEXT.md "Threats"): once pulled, it stays pulled for the life of the
 * process; a reload does not clear it, only a restart does. {@link #pull} is idempotent: the
 * first pull wins and runs the effects once.
 */
public final class KillSwitch {

    /** When and by what the switch was pulled. */
    public record Pulled(Instant at, String trigger) {}

    private final AtomicReference<Pulled> pulled = new AtomicReference<>();

    /** Whether the switch was pulled. Read on every request: one volatile read. */
    public boolean pulled() {
        return pulled.get() != null;
    }

    /** When and by what, or {@code null}. */
    public Pulled state() {
        return pulled.get();
    }

    /**
     * Pulls the switch.
     *
     * @return the pull now in force, and whether it was this call's ({@code first})
     */
    Outcome pull(String trigger) {
        Pulled mine = new Pulled(Instant.now(), trigger);
        boolean first = pulled.compareAndSet(null, mine);
        return new Outcome(pulled.get(), first);
    }

    /** What a pull did: the switch as it stands, and whether this pull was the first. */
    public record Outcome(Pulled pulled, boolean first) {}

    /**
     * Whether the kill file asks for a kill: it exists and holds anything but {@code false},
     * {@code 0}, {@code no} or {@code off} (a ConfigMap or Secret key flipped to {@code "true"},
     * or a file touched into existence). A file that cannot be read counts as a kill: fail closed.
     */
    static boolean fileAsksForKill(Path file) {
        try {
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip().toLowerCase(java.util.Locale.ROOT);
            return !(text.equals("false") || text.equals("0") || text.equals("no") || text.equals("off"));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return Files.exists(file);
        }
    }
}
