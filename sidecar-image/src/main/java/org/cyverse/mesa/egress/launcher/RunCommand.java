package org.cyverse.mesa.egress.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.proxy.AuditLog;
import org.cyverse.mesa.egress.proxy.ConfigReloader;
import org.cyverse.mesa.egress.proxy.HostResolver;
import org.cyverse.mesa.egress.proxy.ProxyServer;
import sun.misc.Signal;

/**
 * {@code run}: serve until SIGTERM or SIGINT, then stop accepting, let open exchanges finish
 * (at most {@link #DRAIN}) and exit 0. SIGHUP, or a change of the config file's content, reloads.
 */
final class RunCommand {

    private static final Logger LOG = Logger.getLogger(RunCommand.class.getName());

    /** How long a stop waits for open exchanges; below Kubernetes' default 30 s grace period. */
    static final Duration DRAIN = Duration.ofSeconds(20);
    private static final long WATCH_MILLIS = 2000;

    private RunCommand() {}

    static int run(List<String> rest, PrintStream err) throws Args.UsageException {
        Args args = Args.parse(rest, Set.of("--config", "--profile", "--listen", "--admin"));
        if (!args.positional.isEmpty()) {
            throw new Args.UsageException("unexpected argument " + args.positional.get(0));
        }
        ConfigArgs configArgs = new ConfigArgs(args);
        MesaConfig config = configArgs.load(err);
        if (config == null) {
            return Main.BAD_INPUT;
        }
        ProxyServer server;
        try {
            server = new ProxyServer(config, HostResolver.SYSTEM, AuditLog.open(config.audit().sink()));
            server.start();
        } catch (IOException e) {
            err.println("mesa-egress: " + e.getMessage());
            return Main.FAILURE;
        }
        LOG.info(() -> "mesa-egress " + Main.version() + " serving profile " + config.profile().name() + " (egress "
                + config.egress().name() + ") on " + hostPort(server.proxyAddress()) + ", admin on " + hostPort(server.adminAddress()));

        ConfigReloader reloader = null;
        if (configArgs.file != null) {
            reloader = new ConfigReloader(configArgs.file, configArgs.loader, configArgs.overrides, server);
            reloader.watch(WATCH_MILLIS);
        }
        ConfigReloader hup = reloader;
        Signal.handle(new Signal("HUP"), s -> {
            if (hup == null) {
                LOG.info("SIGHUP: no config file to reload (started without --config)");
            } else {
                hup.reloadNow("SIGHUP");
            }
        });
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
        return Main.OK;
    }

    private static String hostPort(java.net.InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
