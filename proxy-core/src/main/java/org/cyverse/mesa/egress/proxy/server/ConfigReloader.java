package org.cyverse.mesa.egress.proxy.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;

/**
 * Reloads the config file into a running {@link ProxyServer}: on demand (SIGHUP) and when the
 * file's content changes on disk. Content is compared, not timestamps: a Kubernetes ConfigMap
 * volume swaps a symlink, which a watch on the file itself would miss. An invalid file is
 * refused, logged with every problem, and counted; the running config stays.
 *
 * <p>A file written in two steps must not be loaded halfway (issue 17, item 5: a half-written
 * file that parsed was loaded without its deny list, {@code allow_private} and credentials). The
 * watcher reloads a change only once the content has stayed the same for one whole poll interval,
 * and any reload applies only content that did not change while it was read. A reload that drops
 * every credential, every deny entry or the approval inbox the running config had is logged as a
 * warning naming what went.
 */
public final class ConfigReloader implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ConfigReloader.class.getName());
    /** How long a refused content waits before it is tried again: a Secret it names may be projected after the ConfigMap. */
    private static final long RETRY_MILLIS = 30_000;

    private final Path file;
    private final ConfigLoader loader;
    private final Overrides overrides;
    private final ProxyServer server;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mesa-egress-config-watch");
        t.setDaemon(true);
        return t;
    });
    private byte[] lastDigest;
    /** A changed content seen on the last poll, with its modification time: applied once the next poll sees both unchanged. */
    private String settling;
    /** Polls left before a refused content is tried again (a file it names may appear later), or -1 when the last reload held. */
    private int retryIn = -1;
    private int retryPolls;

    public ConfigReloader(Path file, ConfigLoader loader, Overrides overrides, ProxyServer server) {
        this.file = file;
        this.loader = loader;
        this.overrides = overrides;
        this.server = server;
        this.lastDigest = digest();
    }

    /** Polls the file every {@code periodMillis} and reloads when its content changed. */
    public void watch(long periodMillis) {
        watch(periodMillis, RETRY_MILLIS);
    }

    /** {@link #watch(long)}, trying a refused content again every {@code retryMillis}. */
    public void watch(long periodMillis, long retryMillis) {
        retryPolls = (int) Math.max(1, retryMillis / Math.max(1, periodMillis));
        poller.scheduleWithFixedDelay(() -> {
            try {
                poll();
            } catch (RuntimeException | Error e) {
                // An exception would end the schedule silently: every later change would be missed.
                LOG.log(java.util.logging.Level.WARNING, "config watch: a poll failed; watching on", e);
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    private synchronized void poll() {
        byte[] now = digest();
        if (now == null || Arrays.equals(now, lastDigest)) {
            settling = null;
            if (now != null && retryIn > 0 && --retryIn == 0) {
                reload("a retry of the refused content", now);
            }
        } else {
            String stamp = stamp(now);
            if (stamp.equals(settling)) {
                settling = null;
                reload("the file changed", now);
            } else {
                settling = stamp; // still being written, perhaps: wait one interval for it to settle
            }
        }
    }

    /**
     * Loads the file and applies it if valid.
     *
     * @param trigger why, for the log (e.g. "SIGHUP")
     * @return whether the new config is in force
     */
    public boolean reloadNow(String trigger) {
        return reload(trigger, null);
    }

    /** {@link #reloadNow}; with {@code settled}, only when the file still holds that content (the watcher saw it settle). */
    private synchronized boolean reload(String trigger, byte[] settled) {
        byte[] before = digest();
        if (settled != null && !Arrays.equals(before, settled)) {
            return false; // written again since it settled: the watcher lets the new content settle first
        }
        ConfigResult result = loader.load(file, overrides);
        if (!Arrays.equals(before, digest())) {
            LOG.info(() -> "config reload (" + trigger + ") skipped: the file changed while it was read; the next change is taken");
            return false; // lastDigest unchanged: the watcher sees the change again and lets it settle
        }
        lastDigest = before;
        retryIn = retryPolls; // until it holds: a refused content is tried again after RETRY_MILLIS
        if (!result.ok()) {
            server.reloadFailed();
            LOG.warning("config reload (" + trigger + ") refused; the running config stays. Problems:\n" + result.problems().stream()
                    .map(p -> "  " + p).collect(Collectors.joining("\n")));
            return false;
        }
        warnAboutWhatGoes(server.config(), result.config(), trigger);
        try {
            server.reload(result.config());
        } catch (IOException e) {
            server.reloadFailed();
            LOG.warning("config reload (" + trigger + ") refused; the running config stays: " + e.getMessage());
            return false;
        }
        retryIn = -1;
        LOG.info(() -> "config reloaded (" + trigger + "): profile " + result.config().profile().name()
                + ", egress " + result.config().egress().name());
        return true;
    }

    /** A loud line when the new config drops every credential, deny entry or the approval inbox: a half-written file looks so. */
    private static void warnAboutWhatGoes(MesaConfig running, MesaConfig next,
            String trigger) {
        List<String> gone = new ArrayList<>();
        if (!running.credentials().isEmpty() && next.credentials().isEmpty()) {
            gone.add("every credential (" + running.credentials().size() + ")");
        }
        if (!running.deny().isEmpty() && next.deny().isEmpty()) {
            gone.add("every deny entry (" + running.deny().size() + ")");
        }
        if (running.approvals() != null && running.approvals().enabled() && (next.approvals() == null || !next.approvals().enabled())) {
            gone.add("the approval inbox");
        }
        if (!gone.isEmpty()) {
            LOG.warning("config reload (" + trigger + ") drops " + String.join(", ", gone) + " that the running config had;"
                    + " if that is not meant, the file was written in pieces: write config files atomically (a rename)");
        }
    }

    /** The content's digest and the file's modification time: a rewrite with the same text in between counts as a change. */
    private String stamp(byte[] digest) {
        try {
            return java.util.HexFormat.of().formatHex(digest) + "@" + Files.getLastModifiedTime(file).toInstant();
        } catch (IOException e) {
            return "unreadable";
        }
    }

    private byte[] digest() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null; // missing for a moment while a ConfigMap is swapped: try again next time
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
