package org.cyverse.mesa.egress.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cyverse.mesa.egress.config.ConfigLoader;
import org.cyverse.mesa.egress.config.ConfigResult;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.config.Overrides;
import org.cyverse.mesa.egress.config.ProfileCatalog;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kubernetes manifests, read as typed objects (fabric8's model) from {@code k8s/rendered/}
 * (what kustomize makes of each kustomization), and held to the pod shape of the issue: the
 * native sidecar with its probes and hardening, the lock-down step as the only holder of a
 * capability, the agent's environment and sentinels, the per-analysis ServiceAccount, a proxy
 * config that the real loader accepts, and, for clusters without NET_ADMIN, the proxy pod behind
 * NetworkPolicies.
 */
class ManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final String SHARE = "/run/mesa-egress";
    private static final long PROXY_UID = 65532;
    private static final long AGENT_UID = 1001;

    @TempDir
    Path dir;

    /** The host of a proxy URL such as {@code http://127.0.0.1:3128}. */
    private static String host(String proxyUrl) {
        return java.net.URI.create(proxyUrl).getHost();
    }

    /** The variables every agent container gets, sidecar or proxy pod; {@code PROXY} is the proxy's URL. */
    private static Map<String, String> agentEnvironment(String proxy) {
        return Map.ofEntries(
                Map.entry("HTTP_PROXY", proxy), Map.entry("HTTPS_PROXY", proxy),
                Map.entry("http_proxy", proxy), Map.entry("https_proxy", proxy),
                Map.entry("NO_PROXY", "localhost,127.0.0.1"), Map.entry("no_proxy", "localhost,127.0.0.1"),
                Map.entry("SSL_CERT_FILE", SHARE + "/bundle.pem"), Map.entry("REQUESTS_CA_BUNDLE", SHARE + "/bundle.pem"),
                Map.entry("CURL_CA_BUNDLE", SHARE + "/bundle.pem"), Map.entry("GIT_SSL_CAINFO", SHARE + "/bundle.pem"),
                Map.entry("AWS_CA_BUNDLE", SHARE + "/bundle.pem"), // boto3 and the aws CLI read only this
                Map.entry("NODE_EXTRA_CA_CERTS", SHARE + "/bundle.pem"), // with a private tls.upstream_ca, tunnelled hosts need it too
                Map.entry("NODE_USE_ENV_PROXY", "1"), Map.entry("NODE_OPTIONS", "--require=" + SHARE + "/node-proxy.cjs"),
                Map.entry("JAVA_TOOL_OPTIONS", "-Djavax.net.ssl.trustStore=" + SHARE + "/truststore.p12 "
                        + "-Djavax.net.ssl.trustStoreType=PKCS12 -Djavax.net.ssl.trustStorePassword=changeit"
                        + " -Dhttp.proxyHost=" + host(proxy) + " -Dhttp.proxyPort=3128 -Dhttps.proxyHost=" + host(proxy)
                        + " -Dhttps.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|127.0.0.1"),
                Map.entry("ANTHROPIC_API_KEY", "sk-ant-sentinel"), Map.entry("GH_TOKEN", "proxy-injected"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"p2-background", "p1-workbench", "p4-isolated"})
    void theSidecarPodShape(String name) throws Exception {
        List<HasMetadata> objects = load(name);
        PodSpec pod = podSpec(objects);

        // Order: the lock-down first (nothing runs before the rules), then the native sidecar.
        Container lockdown = pod.getInitContainers().get(0);
        Container proxy = pod.getInitContainers().get(1);
        assertEquals("mesa-egress-lockdown", lockdown.getName());
        assertNull(lockdown.getRestartPolicy(), "the lock-down runs to completion, before the sidecar");
        assertEquals("mesa-egress", proxy.getName());
        assertEquals("Always", proxy.getRestartPolicy(), "a native sidecar");

        // The lock-down: root with NET_ADMIN and nothing else, for the proxy's UID.
        SecurityContext ls = lockdown.getSecurityContext();
        assertEquals(List.of("NET_ADMIN"), ls.getCapabilities().getAdd());
        assertEquals(List.of("ALL"), ls.getCapabilities().getDrop());
        assertEquals(0L, ls.getRunAsUser());
        assertEquals(Boolean.FALSE, ls.getAllowPrivilegeEscalation());
        assertEquals(Boolean.TRUE, ls.getReadOnlyRootFilesystem());
        assertEquals("RuntimeDefault", ls.getSeccompProfile().getType());
        assertEquals(String.valueOf(PROXY_UID), env(lockdown).get("MESA_EGRESS_PROXY_UID"), "the UID it lets out is the proxy's");
        assertTrue(lockdown.getResources().getLimits().containsKey("memory"));

        assertHardenedProxy(proxy, PROXY_UID);
        assertProbesOnTheAdminPort(proxy);
        assertEquals(SHARE, env(proxy).get("MESA_EGRESS_SHARE_DIR"));
        assertEquals(SHARE, mount(proxy, "mesa-egress-share").getMountPath());

        // Only the lock-down holds a capability; nobody else runs as the proxy's UID (it would get out).
        for (Container c : allContainers(pod)) {
            if (c != lockdown) {
                SecurityContext sc = c.getSecurityContext();
                assertTrue(sc.getCapabilities().getAdd() == null || sc.getCapabilities().getAdd().isEmpty(), c.getName());
            }
            if (c != proxy && c.getSecurityContext().getRunAsUser() != null) {
                assertFalse(c.getSecurityContext().getRunAsUser() == PROXY_UID, c.getName() + " runs as the proxy's UID");
            }
        }

        Container agent = container(pod, "agent");
        assertHardenedAgent(agent);
        assertTrue(env(agent).entrySet().containsAll(agentEnvironment("http://127.0.0.1:3128").entrySet()),
                "agent environment: " + env(agent));
        VolumeMount share = mount(agent, "mesa-egress-share");
        assertEquals(SHARE, share.getMountPath());
        assertEquals(Boolean.TRUE, share.getReadOnly(), "the agent cannot replace the trust files");
        assertNotNull(volume(pod, "mesa-egress-share").getEmptyDir(), "an emptyDir shared by the two");

        // The CA key's directory and the OpenBao token are the proxy's alone; the agent gets no token.
        assertNull(mountOrNull(agent, "mesa-egress-ca"));
        assertNull(mountOrNull(agent, "openbao-token"));
        assertEquals(Boolean.FALSE, pod.getAutomountServiceAccountToken());
        assertEquals("openbao", volume(pod, "openbao-token").getProjected().getSources().get(0).getServiceAccountToken().getAudience());

        // One ServiceAccount per analysis, rendered with the pod that uses it.
        ServiceAccount account = only(objects, ServiceAccount.class, pod.getServiceAccountName());
        assertEquals(Boolean.FALSE, account.getAutomountServiceAccountToken());

        // The config the sidecar reads: the real loader accepts it, and it matches the pod.
        String configMapName = volume(pod, "mesa-egress-config").getConfigMap().getName();
        MesaConfig config = loadConfig(only(objects, ConfigMap.class, configMapName));
        assertEquals("/etc/mesa-egress/mesa-egress.yaml", env(proxy).get("MESA_EGRESS_CONFIG"));
        assertEquals("/etc/mesa-egress", mount(proxy, "mesa-egress-config").getMountPath());
        assertEquals("127.0.0.1:3128", config.listen().toString(), "the agent's HTTP_PROXY port, on loopback only");
        assertEquals(9090, config.admin().port(), "the probes' port");
        Path keyDir = config.tls().caKey().getParent();
        assertEquals(keyDir.toString(), mount(proxy, "mesa-egress-ca").getMountPath(), "the CA key lives in the proxy's own volume");
        assertFalse(keyDir.startsWith(SHARE), "never in the share dir");

        // The admin token and the kill file: mounted into the proxy's container alone, no fsGroup
        // (it would give the agent the proxy's group), the config naming files inside those mounts.
        Path tokenFile = config.control().tokenFile();
        assertNotNull(tokenFile, "state-changing admin calls (POST /kill) need admin.token_file");
        assertEquals(tokenFile.getParent().toString(), mount(proxy, "mesa-egress-admin").getMountPath());
        assertEquals("mesa-egress-admin", volume(pod, "mesa-egress-admin").getSecret().getSecretName());
        Path killFile = config.control().killFile();
        assertNotNull(killFile, "the kill switch can be pulled with a file");
        assertEquals(killFile.getParent().toString(), mount(proxy, "mesa-egress-kill").getMountPath());
        assertKillFileIsFalse(objects, volume(pod, "mesa-egress-kill").getConfigMap().getName());
        for (Container c : allContainers(pod)) {
            if (c != proxy) {
                assertNull(mountOrNull(c, "mesa-egress-admin"), c.getName() + " can read the admin token");
                assertNull(mountOrNull(c, "mesa-egress-kill"), c.getName() + " sees the kill file");
            }
        }
        assertTrue(pod.getSecurityContext().getFsGroup() == null, "an fsGroup would reach the agent too");

        // The approval inbox under the A1 profiles, its state in a memory volume only the proxy mounts.
        assertEquals(config.profile().approvable(), config.approvals().enabled(), "the inbox is on exactly where the profile is A1");
        if (config.approvals().enabled()) {
            assertEquals(config.approvals().stateFile().getParent().toString(), mount(proxy, "mesa-egress-state").getMountPath());
            assertEquals("Memory", volume(pod, "mesa-egress-state").getEmptyDir().getMedium());
            for (Container c : allContainers(pod)) {
                if (c != proxy) {
                    assertNull(mountOrNull(c, "mesa-egress-state"), c.getName() + " could write the approvals state file");
                }
            }
        }

        String expectedProfile = name.substring(0, 2).toUpperCase();
        assertEquals(expectedProfile, config.profile().name());
    }

    @Test
    void eachProfileGetsItsWorkloadAndRuntime() throws Exception {
        assertEquals(1, objects(load("p2-background"), Job.class).size(), "P2 is a background Job");
        assertEquals(Long.valueOf(AGENT_UID), container(podSpec(load("p1-workbench")), "agent").getSecurityContext().getRunAsUser());
        assertEquals(1, objects(load("p1-workbench"), Deployment.class).size(), "P1 is the workbench Deployment");
        PodSpec p4 = podSpec(load("p4-isolated"));
        assertEquals("kata", p4.getRuntimeClassName());
        assertEquals("1", container(p4, "agent").getResources().getLimits().get("nvidia.com/gpu").toString());
        List<HasMetadata> p3 = load("p3-autonomous");
        PodSpec agentPod = objects(p3, Job.class).get(0).getSpec().getTemplate().getSpec();
        assertEquals("gvisor", agentPod.getRuntimeClassName());
        String configMapName = objects(p3, ConfigMap.class).get(0).getMetadata().getName();
        assertEquals("P3", loadConfig(only(p3, ConfigMap.class, configMapName)).profile().name());
    }

    @ParameterizedTest
    @ValueSource(strings = {"proxy-pod", "p3-autonomous"})
    void theProxyPodShapeForClustersWithoutNetAdmin(String name) throws Exception {
        List<HasMetadata> objects = load(name);
        Deployment proxyDeployment = objects(objects, Deployment.class).get(0);
        PodTemplateSpec proxyTemplate = proxyDeployment.getSpec().getTemplate();
        PodSpec proxyPod = proxyTemplate.getSpec();
        Job job = objects(objects, Job.class).get(0);
        PodTemplateSpec agentTemplate = job.getSpec().getTemplate();
        PodSpec agentPod = agentTemplate.getSpec();

        Container proxy = container(proxyPod, "mesa-egress");
        assertHardenedProxy(proxy, PROXY_UID);
        assertProbesOnTheAdminPort(proxy);
        // No capability anywhere: this shape exists for clusters that forbid NET_ADMIN.
        for (Container c : Stream.concat(allContainers(proxyPod).stream(), allContainers(agentPod).stream()).toList()) {
            SecurityContext sc = c.getSecurityContext();
            assertTrue(sc.getCapabilities().getAdd() == null || sc.getCapabilities().getAdd().isEmpty(), c.getName());
        }

        // The agent reaches the proxy through the Service, which selects the proxy pod.
        Service service = objects(objects, Service.class).get(0);
        assertEquals(withoutPartOf(proxyTemplate.getMetadata().getLabels()), withoutPartOf(service.getSpec().getSelector()));
        Container agent = container(agentPod, "agent");
        assertHardenedAgent(agent);
        String proxyUrl = "http://" + service.getMetadata().getName() + ":" + service.getSpec().getPorts().get(0).getPort();
        assertTrue(env(agent).entrySet().containsAll(agentEnvironment(proxyUrl).entrySet()), "agent environment: " + env(agent));
        assertEquals(Boolean.FALSE, agentPod.getAutomountServiceAccountToken());
        assertFalse(agentPod.getServiceAccountName().equals(proxyPod.getServiceAccountName()),
                "the agent's account is not the one OpenBao trusts");

        // The agent's pod holds the CA certificate only; its trust files come from `mesa-egress trust`.
        Volume caInAgent = volume(agentPod, "ca-certificate");
        assertEquals(List.of("tls.crt"), caInAgent.getSecret().getItems().stream().map(i -> i.getKey()).toList());
        Container trust = container(agentPod, "mesa-egress-trust");
        assertEquals("trust", trust.getArgs().get(0));
        assertTrue(trust.getArgs().containsAll(List.of("--share-dir", SHARE)), trust.getArgs().toString());
        List<?> proxyItems = volume(proxyPod, "ca").getSecret().getItems();
        assertTrue(proxyItems == null || proxyItems.isEmpty(), "the proxy pod mounts the whole Secret, key included");

        // NetworkPolicy: the agent's pod may talk to its own proxy pod (3128) and DNS, nothing else, and takes no connections.
        NetworkPolicy agentPolicy = policyFor(objects, agentTemplate.getMetadata().getLabels());
        assertEquals(List.of("Ingress", "Egress"), agentPolicy.getSpec().getPolicyTypes());
        assertTrue(agentPolicy.getSpec().getIngress().isEmpty(), "no way in");
        List<NetworkPolicyEgressRule> egress = agentPolicy.getSpec().getEgress();
        assertEquals(2, egress.size());
        assertEquals(withoutPartOf(proxyTemplate.getMetadata().getLabels()), withoutPartOf(egress.get(0).getTo().get(0).getPodSelector().getMatchLabels()));
        assertEquals(List.of(3128), egress.get(0).getPorts().stream().map(p -> p.getPort().getIntVal()).toList());
        assertEquals(Set.of(53), egress.get(1).getPorts().stream().map(p -> p.getPort().getIntVal()).collect(Collectors.toSet()));
        assertEquals("kube-dns", egress.get(1).getTo().get(0).getPodSelector().getMatchLabels().get("k8s-app"));
        // ... and the proxy pod takes its proxy port from that agent only (not another analysis's).
        NetworkPolicy proxyPolicy = policyFor(objects, proxyTemplate.getMetadata().getLabels());
        assertEquals(withoutPartOf(agentTemplate.getMetadata().getLabels()),
                withoutPartOf(proxyPolicy.getSpec().getIngress().get(0).getFrom().get(0).getPodSelector().getMatchLabels()));
        assertTrue(proxyTemplate.getMetadata().getLabels().containsKey("mesa.cyverse.org/analysis"));

        MesaConfig config = loadConfig(only(objects, ConfigMap.class, volume(proxyPod, "config").getConfigMap().getName()));
        assertEquals("0.0.0.0", config.listen().host(), "reached from the agent's pod");
        assertEquals(3128, config.listen().port());

        // The admin token in the proxy's pod, its only container; the pod's fsGroup makes the
        // root-owned Secret files (CA key, token) readable by the proxy's group, 0440.
        assertEquals(List.of("mesa-egress"), allContainers(proxyPod).stream().map(Container::getName).toList());
        assertEquals(Long.valueOf(PROXY_UID), proxyPod.getSecurityContext().getFsGroup());
        assertEquals(config.control().tokenFile().getParent().toString(), mount(proxy, "admin-token").getMountPath());
        assertEquals("mesa-egress-admin", volume(proxyPod, "admin-token").getSecret().getSecretName());
        assertEquals(config.control().killFile().getParent().toString(), mount(proxy, "kill").getMountPath());
        assertKillFileIsFalse(objects, volume(proxyPod, "kill").getConfigMap().getName());
        for (Container c : allContainers(agentPod)) {
            assertTrue(c.getVolumeMounts() == null || c.getVolumeMounts().stream().noneMatch(m -> m.getMountPath().startsWith("/run/mesa-egress-admin")),
                    c.getName());
        }
    }

    /**
     * The committed renders are what kustomize makes of the sources now. Runs where a kustomize
     * is installed (kustomize, or kubectl's built-in); without one it cannot compare, and says so.
     */
    @Test
    void theRenderedFilesAreCurrent() throws Exception {
        List<String> renderer = renderer();
        if (renderer == null) {
            System.err.println("ManifestsTest: NO kustomize OR kubectl ON THIS MACHINE: cannot check k8s/rendered/ against the sources");
        }
        Assumptions.assumeTrue(renderer != null, "needs kustomize or kubectl to re-render k8s/");
        Map<String, String> sources = Map.of("p2-background", "base", "p1-workbench", "overlays/p1-workbench",
                "p3-autonomous", "overlays/p3-autonomous", "p4-isolated", "overlays/p4-isolated", "proxy-pod", "proxy-pod");
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Command.Result rendered = Command.run(Duration.ofSeconds(60), Map.of(), Command.concat(renderer, K8S.resolve(e.getValue()).toString()));
            assertTrue(rendered.ok(), rendered.describe());
            String committed = Files.readString(K8S.resolve("rendered/" + e.getKey() + ".yaml"), StandardCharsets.UTF_8);
            assertEquals(committed.substring(committed.indexOf('\n') + 1), rendered.stdout(),
                    "k8s/rendered/" + e.getKey() + ".yaml is stale: run sidecar-image/k8s/render.sh");
        }
    }

    // ---- assertions shared by both shapes ----

    private static void assertHardenedProxy(Container proxy, long uid) {
        SecurityContext sc = proxy.getSecurityContext();
        assertEquals(Boolean.TRUE, sc.getRunAsNonRoot());
        assertEquals(Long.valueOf(uid), sc.getRunAsUser(), "numeric UID");
        assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem());
        assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        assertEquals("RuntimeDefault", sc.getSeccompProfile().getType());
        for (String kind : List.of("cpu", "memory")) {
            assertNotNull(proxy.getResources().getRequests().get(kind), "request " + kind);
            assertNotNull(proxy.getResources().getLimits().get(kind), "limit " + kind);
        }
    }

    private static void assertProbesOnTheAdminPort(Container proxy) {
        int admin = proxy.getPorts().stream().filter(p -> "admin".equals(p.getName())).findFirst().orElseThrow().getContainerPort();
        assertEquals(9090, admin);
        Map<String, Probe> probes = Map.of("/readyz", proxy.getStartupProbe(), "/readyz ", proxy.getReadinessProbe(),
                "/healthz", proxy.getLivenessProbe());
        probes.forEach((path, probe) -> {
            assertNotNull(probe, "probe " + path);
            assertEquals(path.strip(), probe.getHttpGet().getPath());
            assertEquals("admin", probe.getHttpGet().getPort().getStrVal());
        });
        assertTrue(proxy.getStartupProbe().getFailureThreshold() * proxy.getStartupProbe().getPeriodSeconds() >= 60,
                "credentials may take a while to resolve");
    }

    private static void assertHardenedAgent(Container agent) {
        SecurityContext sc = agent.getSecurityContext();
        assertEquals(Long.valueOf(AGENT_UID), sc.getRunAsUser());
        assertEquals(Boolean.TRUE, sc.getRunAsNonRoot());
        assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem());
        assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), "no setuid way to another UID (the proxy's)");
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        assertEquals("RuntimeDefault", sc.getSeccompProfile().getType());
    }

    /** The kill file's ConfigMap is rendered with the pod, says false, and has a name without a hash (the one an operator patches). */
    private static void assertKillFileIsFalse(List<HasMetadata> objects, String name) {
        ConfigMap kill = only(objects, ConfigMap.class, name);
        assertEquals(Map.of("kill", "false"), kill.getData(), "not killed until an operator flips it");
        assertTrue(name.equals("mesa-egress-kill") || name.startsWith("mesa-egress-kill-"), name);
    }

    /**
     * A per-analysis overlay as the README gives it: nameSuffix and a Secret generated from the
     * launcher's token file make the token and the kill file the job's own, referenced by its pod.
     */
    @Test
    void aPerAnalysisOverlayGivesTheJobItsOwnTokenAndKillFile() throws Exception {
        List<String> renderer = renderer();
        Assumptions.assumeTrue(renderer != null, "needs kustomize or kubectl to render an overlay");
        Path tree = dir.resolve("k8s");
        try (var files = Files.walk(K8S)) {
            for (Path source : files.toList()) {
                Path target = tree.resolve(K8S.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
        Path overlay = Files.createDirectories(tree.resolve("overlays/analysis-a42"));
        Files.writeString(overlay.resolve("kustomization.yaml"), String.join("\n",
                "apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", "resources:", "  - ../../base",
                "nameSuffix: -a42", "secretGenerator:", "  - name: mesa-egress-admin", "    files:", "      - token", ""));
        Files.writeString(overlay.resolve("token"), "3f9d1c0b7a6e5d4c3b2a19080706050403020100\n");
        Command.Result rendered = Command.run(Duration.ofSeconds(60), Map.of(), Command.concat(renderer, overlay.toString()));
        assertTrue(rendered.ok(), rendered.describe());
        List<HasMetadata> objects = parse(new java.io.ByteArrayInputStream(rendered.stdout().getBytes(StandardCharsets.UTF_8)));
        PodSpec pod = podSpec(objects);
        String secretName = volume(pod, "mesa-egress-admin").getSecret().getSecretName();
        assertTrue(secretName.startsWith("mesa-egress-admin-a42-"), secretName);
        assertEquals(1, objects.stream().filter(o -> o instanceof io.fabric8.kubernetes.api.model.Secret
                && o.getMetadata().getName().equals(secretName)).count(), "the job's own Secret, rendered with it");
        String killName = volume(pod, "mesa-egress-kill").getConfigMap().getName();
        assertEquals("mesa-egress-kill-a42", killName, "the name an operator patches for this job");
        assertKillFileIsFalse(objects, killName);
    }

    /**
     * The JDK ignores HTTPS_PROXY: the agent's JAVA_TOOL_OPTIONS, exactly as the P2 manifest gives
     * them (the proxy's port and the share dir moved to this test's), take a plain JDK program
     * through the real proxy: an allowed host answers, a refused HTTPS host's refusal is read.
     */
    @Test
    void theAgentsJavaEnvironmentAloneTakesAJdkProgramThroughTheProxy() throws Exception {
        String options = env(container(podSpec(load("p2-background")), "agent")).get("JAVA_TOOL_OPTIONS");
        com.sun.net.httpserver.HttpServer upstream = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 4);
        upstream.createContext("/", exchange -> {
            byte[] body = "hello agent".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
        String yaml = "profile: P2\negress: N2\nallow:\n  - host: \"agent.test\"\n    ports: [" + upstream.getAddress().getPort() + "]\n"
                + "network:\n  allow_private: [\"127.0.0.1/32\"]\n";
        try (org.cyverse.mesa.egress.testkit.ProxyFixture proxy = org.cyverse.mesa.egress.testkit.ProxyFixture.start(yaml,
                host -> List.of(java.net.InetAddress.getByName("127.0.0.1")))) {
            Path share = Files.createDirectories(dir.resolve("share"));
            java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("mesa-egress", proxy.server().ca().certificate());
            try (var out = Files.newOutputStream(share.resolve("truststore.p12"))) {
                store.store(out, "changeit".toCharArray());
            }
            String moved = options.replace(SHARE, share.toString()).replace("3128", Integer.toString(proxy.port()));
            Path program = dir.resolve("Agent.java");
            Files.writeString(program, String.join("\n",
                    "import java.net.URI; import java.net.http.*;",
                    "public class Agent { public static void main(String[] urls) throws Exception {",
                    "  for (String url : urls) {",
                    "    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),",
                    "        HttpResponse.BodyHandlers.ofString());",
                    "    System.out.println(r.statusCode() + \" \" + r.headers().firstValue(\"X-Mesa-Egress-Reason\").orElse(r.body()));",
                    "  } } }"));
            ProcessBuilder agent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), program.toString(),
                    "http://agent.test:" + upstream.getAddress().getPort() + "/", "https://exfil.example.org/");
            agent.environment().keySet().removeIf(k -> k.toLowerCase(java.util.Locale.ROOT).endsWith("_proxy") || k.equals("JAVA_TOOL_OPTIONS"));
            agent.environment().put("JAVA_TOOL_OPTIONS", moved);
            agent.redirectErrorStream(true);
            Process run = agent.start();
            String printed = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(printed.contains("200 hello agent"), "the allowed host, through the proxy (agent.test resolves nowhere else): " + printed);
            assertTrue(printed.contains("403 host_not_allowed"), "the refused HTTPS host's refusal, read inside TLS: " + printed);
            assertTrue(proxy.awaitAuditRecord(r -> "agent.test".equals(r.path("host").asText())).path("decision").asText().equals("allow"));
        } finally {
            upstream.stop(0);
        }
    }

    /**
     * Node 20 ignores HTTPS_PROXY in fetch and https alike: the agent's Node variables, exactly as
     * the P2 manifest gives them (share dir and port moved to this test's), with the share dir as
     * run writes it, take fetch over plain http (forwarded), fetch and https.get to an allowed
     * HTTPS host (tunnelled; its private CA verifies through bundle.pem) and to a refused one (the
     * refusal read inside TLS) through the real proxy. Without NODE_OPTIONS the same program
     * bypasses the proxy: the names resolve nowhere else.
     */
    @Test
    void theAgentsNodeEnvironmentAloneTakesFetchAndHttpsThroughTheProxy() throws Exception {
        Map<String, String> manifest = env(container(podSpec(load("p2-background")), "agent"));
        com.sun.net.httpserver.HttpServer plain = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 4);
        plain.createContext("/", exchange -> {
            byte[] body = "hello node".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        plain.start();
        org.cyverse.mesa.egress.testpki.TestPki pki = new org.cyverse.mesa.egress.testpki.TestPki("private upstream CA");
        Path upstreamCa = pki.writeCaPem(dir.resolve("upstream-ca.pem"));
        int plainPort = plain.getAddress().getPort();
        try (org.cyverse.mesa.egress.testkit.HttpsUpstream tls = new org.cyverse.mesa.egress.testkit.HttpsUpstream(
                pki.serverContext("tunnel.test"), "127.0.0.1");
                org.cyverse.mesa.egress.testkit.ProxyFixture proxy = org.cyverse.mesa.egress.testkit.ProxyFixture.start(
                        "profile: P2\negress: N2\nallow:\n  - host: \"agent.test\"\n    ports: [" + plainPort + "]\n"
                        + "  - host: \"tunnel.test\"\n    ports: [" + tls.port() + "]\n"
                        + "network:\n  allow_private: [\"127.0.0.1/32\"]\ntls:\n  upstream_ca: \"" + upstreamCa + "\"\n",
                        host -> List.of(java.net.InetAddress.getByName("127.0.0.1")))) {
            Path share = dir.resolve("share");
            org.cyverse.mesa.egress.launcher.ShareDirs.publish(share, proxy.server().ca().certificate(), upstreamCa);
            Path program = dir.resolve("agent.js");
            Files.writeString(program, String.join("\n",
                    "const https = require('https');",
                    "(async () => {",
                    "  for (const url of process.argv.slice(2)) {",
                    "    try { const r = await fetch(url); console.log('fetch', url, r.status, r.headers.get('x-mesa-egress-reason') || await r.text()); }",
                    "    catch (e) { console.log('fetch', url, 'failed', e.cause ? e.cause.message : e.message); }",
                    "  }",
                    "  for (const url of process.argv.slice(3)) {",
                    "    await new Promise((done) => https.get(url, (res) => { let t = ''; res.on('data', (c) => { t += c; });",
                    "      res.on('end', () => { console.log('https.get', url, res.statusCode, res.headers['x-mesa-egress-reason'] || t.slice(0, 20)); done(); }); })",
                    "      .on('error', (e) => { console.log('https.get', url, 'failed', e.message); done(); }));",
                    "  }",
                    "})();"));
            String forwarded = "http://agent.test:" + plainPort + "/";
            String tunnelled = "https://tunnel.test:" + tls.port() + "/";
            String refused = "https://exfil.example.org/";
            java.util.function.Function<Boolean, String> runNode = withPreload -> {
                ProcessBuilder agent = new ProcessBuilder("node", program.toString(), forwarded, tunnelled, refused).redirectErrorStream(true);
                agent.environment().keySet().removeIf(k -> k.toLowerCase(java.util.Locale.ROOT).endsWith("_proxy") || k.startsWith("NODE_"));
                for (String name : List.of("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS", "NODE_USE_ENV_PROXY", "NODE_OPTIONS")) {
                    if (withPreload || !name.equals("NODE_OPTIONS")) {
                        agent.environment().put(name, manifest.get(name).replace(SHARE, share.toString()).replace("3128", Integer.toString(proxy.port())));
                    }
                }
                try {
                    Process run = agent.start();
                    String printed = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertTrue(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
                    return printed;
                } catch (IOException | InterruptedException e) {
                    throw new AssertionError("node did not run (bin/test installs it): " + e, e);
                }
            };
            String printed = runNode.apply(true);
            assertTrue(printed.contains("fetch " + forwarded + " 200 hello node"), "plain http, forwarded: " + printed);
            assertTrue(printed.contains("fetch " + tunnelled + " 200"), "an allowed HTTPS host, tunnelled, its private CA from bundle.pem: " + printed);
            assertTrue(printed.contains("https.get " + tunnelled + " 200"), printed);
            assertTrue(printed.contains("fetch " + refused + " 403 host_not_allowed"), "the refusal, read inside TLS: " + printed);
            assertTrue(printed.contains("https.get " + refused + " 403 host_not_allowed"), printed);
            assertEquals(2, tls.seen().size(), "fetch and https.get each reached the tunnelled host: " + tls.seen());
            assertEquals("allow", proxy.awaitAuditRecord(r -> "agent.test".equals(r.path("host").asText())).path("decision").asText());

            String bypassed = runNode.apply(false);
            assertTrue(bypassed.contains("fetch " + forwarded + " failed") && bypassed.contains("https.get " + refused + " failed"),
                    "without the preload Node 20 ignores the proxy variables: " + bypassed);
        } finally {
            plain.stop(0);
        }
    }

    private static List<String> renderer() {
        if (Command.run(Duration.ofSeconds(10), "sh", "-c", "command -v kustomize").ok()) {
            return List.of("kustomize", "build");
        }
        if (Command.run(Duration.ofSeconds(10), "sh", "-c", "command -v kubectl").ok()) {
            return List.of("kubectl", "kustomize");
        }
        return null;
    }

    // ---- reading ----

    private static List<HasMetadata> load(String name) throws IOException {
        try (InputStream in = Files.newInputStream(K8S.resolve("rendered/" + name + ".yaml"))) {
            return parse(in);
        }
    }

    private static List<HasMetadata> parse(InputStream in) {
        Object parsed = new KubernetesSerialization().unmarshal(in);
        List<HasMetadata> objects = new ArrayList<>();
        if (parsed instanceof List<?> list) {
            list.forEach(o -> objects.add((HasMetadata) o));
        } else {
            objects.add((HasMetadata) parsed);
        }
        return objects;
    }

    private MesaConfig loadConfig(ConfigMap configMap) throws IOException {
        Path file = dir.resolve(configMap.getMetadata().getName() + ".yaml");
        Files.writeString(file, configMap.getData().get("mesa-egress.yaml"), StandardCharsets.UTF_8);
        ConfigResult result = new ConfigLoader(ProfileCatalog.bundled()).load(file, Overrides.NONE);
        assertTrue(result.ok(), "the config in " + configMap.getMetadata().getName() + " is invalid: " + result.problems());
        return result.config();
    }

    private static <T extends HasMetadata> List<T> objects(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type, String name) {
        List<T> found = objects(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
        assertEquals(1, found.size(), type.getSimpleName() + " " + name);
        return found.get(0);
    }

    private static PodSpec podSpec(List<HasMetadata> objects) {
        List<PodSpec> specs = new ArrayList<>();
        objects(objects, Job.class).forEach(j -> specs.add(j.getSpec().getTemplate().getSpec()));
        objects(objects, Deployment.class).forEach(d -> specs.add(d.getSpec().getTemplate().getSpec()));
        assertEquals(1, specs.size(), "one workload");
        return specs.get(0);
    }

    private static NetworkPolicy policyFor(List<HasMetadata> objects, Map<String, String> podLabels) {
        return objects(objects, NetworkPolicy.class).stream()
                .filter(p -> podLabels.entrySet().containsAll(p.getSpec().getPodSelector().getMatchLabels().entrySet()))
                .findFirst().orElseThrow(() -> new AssertionError("no NetworkPolicy selects " + podLabels));
    }

    private static Map<String, String> withoutPartOf(Map<String, String> labels) {
        return labels.entrySet().stream().filter(e -> !e.getKey().equals("app.kubernetes.io/part-of"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static List<Container> allContainers(PodSpec pod) {
        List<Container> all = new ArrayList<>(pod.getInitContainers());
        all.addAll(pod.getContainers());
        return all;
    }

    private static Container container(PodSpec pod, String name) {
        return allContainers(pod).stream().filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name));
    }

    private static Map<String, String> env(Container c) {
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e.getValue() == null ? "" : e.getValue()));
    }

    private static VolumeMount mount(Container c, String volume) {
        VolumeMount m = mountOrNull(c, volume);
        assertNotNull(m, c.getName() + " mounts " + volume);
        return m;
    }

    private static VolumeMount mountOrNull(Container c, String volume) {
        return c.getVolumeMounts().stream().filter(m -> m.getName().equals(volume)).findFirst().orElse(null);
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }
}
