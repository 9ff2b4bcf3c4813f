package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.audit.JsonLinesFormat;
import org.cyverse.mesa.egress.audit.StreamSink;
import org.cyverse.mesa.egress.config.ConfigProblem;
import org.cyverse.mesa.egress.config.InterceptMode;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.proxy.server.ConfigReloader;
import org.cyverse.mesa.egress.proxy.server.ProxyServer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code run}: serve until SIGTERM or SIGINT, then stop accepting, let open exchanges finish
 * (at most {@link #DRAIN}) and exit 0. SIGHUP, or a change of the config file's content, reloads.
 * With {@code --share-dir DIR} (or {@code MESA_EGRESS_SHARE_DIR}) it first writes the agent's trust
 * files there ({@link SharedTrustFiles}), before the listeners bind.
 */
final class RunCommand {

    private static final Logger LOG = Logger.getLogger(RunCommand.class.getName());

    /** How long a stop waits for open exchanges; below Kubernetes' default 30 s grace period. */
    static final Duration DRAIN = Duration.ofSeconds(20);
    private static final long WATCH_MILLIS = 2000;

    private RunCommand() {}

    static final Set<String> FLAGS = Set.of("--config", "--profile", "--listen", "--admin", "--share-dir");

    static int run(List<String> rest, PrintStream err, Map<String, String> env) throws Args.UsageException {
        Args args = EnvironmentFlags.fill(Args.parse(rest, FLAGS), FLAGS, env);
        if (!args.positional.isEmpty()) {
            throw new Args.UsageException("unexpected argument " + args.positional.get(0));
        }
        ConfigArgs configArgs = new ConfigArgs(args);
        MesaConfig config = configArgs.load(err);
        if (config == null) {
            return Exit.BAD_INPUT;
        }
        Path shareDir = args.flag("--share-dir") == null ? null : Path.of(args.flag("--share-dir"));
        if (shareDir != null && config.tls().intercept() != InterceptMode.NONE && config.tls().caKey() != null
                && isInside(config.tls().caKey(), shareDir)) {
            err.println("mesa-egress: tls.ca_key " + config.tls().caKey() + " is inside the share dir " + shareDir + " ("
                    + args.origin("--share-dir") + "), which the agent's container reads: keep the CA key in a directory "
                    + "only the proxy mounts");
            return Exit.BAD_INPUT;
        }
        List<ConfigProblem> files = Preflight.problems(config);
        if (!files.isEmpty()) {
            files.forEach(err::println); // FILE:LINE: key: message, as validate prints them, before anything is created
            return Exit.BAD_INPUT;
        }
        ProxyServer server;
        try {
            server = new ProxyServer(config, HostResolver.SYSTEM, StreamSink.open(config.audit().sink(), new JsonLinesFormat()));
        } catch (IOException e) {
            err.println("mesa-egress: " + e.getMessage());
            return Exit.FAILURE;
        }
        if (shareDir != null) {
            // Before the listeners bind: once /readyz (or even /healthz) answers, the files are there.
            try {
                String written = SharedTrustFiles.publish(shareDir, server.ca() == null ? null : server.ca().certificate(),
                        config.tls().upstreamCa(), env);
                LOG.info(written);
            } catch (IOException e) {
                err.println("mesa-egress: cannot write the trust files to the share dir " + shareDir + " ("
                        + args.origin("--share-dir") + "): " + e.getMessage());
                server.close();
                return Exit.FAILURE;
            }
        }
        try {
            server.start();
        } catch (IOException e) {
            err.println("mesa-egress: " + e.getMessage());
            return Exit.FAILURE;
        }
        LOG.info(() -> "mesa-egress " + Exit.version() + " serving profile " + config.profile().name() + " (egress "
                + config.egress().name() + ") on " + hostPort(server.proxyAddress()) + ", admin on " + hostPort(server.adminAddress())
                + " (" + server.transport() + ")");

        ConfigReloader reloader = null;
        if (configArgs.file != null) {
            reloader = new ConfigReloader(configArgs.file, configArgs.loader, configArgs.overrides, server);
            reloader.watch(WATCH_MILLIS);
        }
        ConfigReloader hup = reloader;
        SignalHandler before = Signal.handle(new Signal("HUP"), s -> {
            if (hup == null) {
                LOG.info("SIGHUP: no config file to reload (started without --config)");
            } else {
                hup.reloadNow("SIGHUP");
            }
        });
        if (before == SignalHandler.SIG_IGN) {
            // The JVM keeps a signal ignored that was ignored at start (nohup): the handler above is not installed.
            LOG.warning("SIGHUP is ignored by this process (started under nohup, or by a parent that ignores it), so it"
                    + " cannot reload the config; a change of the config file on disk still reloads it. Start the proxy"
                    + " with bin/mesa-egress, which resets SIGHUP, or without nohup");
        }
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("stopping: no new connections; open exchanges get up to " + DRAIN.toSeconds() + " s");
        if (reloader != null) {
            reloader.close();
        }
        boolean drained = server.stop(DRAIN);
        LOG.info(drained ? "stopped cleanly" : "stopped; connections still open after the drain were closed");
        return Exit.OK;
    }

    /** Whether {@code file} lies in {@code dir} or below it, symbolic links resolved where they exist. */
    static boolean isInside(Path file, Path dir) {
        return real(file).startsWith(real(dir));
    }

    private static Path real(Path p) {
        Path absolute = p.toAbsolutePath().normalize();
        // Resolve the longest existing prefix: the key file may not exist yet (it is created on first start).
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute));
        } catch (IOException e) {
            return absolute;
        }
    }

    private static String hostPort(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
