package org.cyverse.mesa.egress.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.Overrides;

/**
 * Reloads the config file into a running {@link ProxyServer}: on demand (SIGHUP) and when the
 * file's content changes on disk. Content is compared, not timestamps: a Kubernetes ConfigMap
 * volume swaps a symlink, which a watch on the file itself would miss. An invalid file is
 * refused, logged with every problem, and counted; the running config stays.
 */
public final class ConfigReloader implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ConfigReloader.class.getName());

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

    public ConfigReloader(Path file, ConfigLoader loader, Overrides overrides, ProxyServer server) {
        this.file = file;
        this.loader = loader;
        this.overrides = overrides;
        this.server = server;
        this.lastDigest = digest();
    }

    /** Polls the file every {@code periodMillis} and reloads when its content changed. */
    public void watch(long periodMillis) {
        poller.scheduleWithFixedDelay(() -> {
            byte[] now = digest();
            if (now != null && !Arrays.equals(now, lastDigest)) {
                reloadNow("the file changed");
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Loads the file and applies it if valid.
     *
     * @param trigger why, for the log (e.g. "SIGHUP")
     * @return whether the new config is in force
     */
    public synchronized boolean reloadNow(String trigger) {
        lastDigest = digest();
        ConfigResult result = loader.load(file, overrides);
        if (!result.ok()) {
            server.reloadFailed();
            LOG.warning("config reload (" + trigger + ") refused; the running config stays. Problems:\n" + result.problems().stream()
                    .map(p -> "  " + p).collect(Collectors.joining("\n")));
            return false;
        }
        try {
            server.reload(result.config());
        } catch (IOException e) {
            server.reloadFailed();
            LOG.warning("config reload (" + trigger + ") refused; the running config stays: " + e.getMessage());
            return false;
        }
        LOG.info(() -> "config reloaded (" + trigger + "): profile " + result.config().profile().name()
                + ", egress " + result.config().egress().name());
        return true;
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
