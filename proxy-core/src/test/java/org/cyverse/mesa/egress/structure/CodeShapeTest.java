package org.cyverse.mesa.egress.structure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape the code must keep, read from the compiled classes with the JDK's {@code jdeps} (as
 * anyone can run it: {@code jdeps -verbose:class -filter:none proxy-core/target/classes}): no
 * cycle between the classes of {@code proxy/} and its packages, or of {@code admission/}, no cycle
 * between the packages of the product (allowlist, injector, config and proxy-core:
 * {@code jdeps -verbose:package}), the admission free of Netty, the audit package free of the
 * proxy's, at most 30 files directly in {@code proxy/}, and no source file over 300 lines in
 * {@code proxy/} (any of its packages) or {@code admission/}.
 */
class CodeShapeTest {

    private static final String BASE = "org.cyverse.mesa.egress.";
    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)");
    /** Class to the classes it uses, top-level classes only (nested and anonymous classes count as their outer class). */
    private static final Map<String, Set<String>> USES = new TreeMap<>();
    /** The modules proxy-core is built after, whose classes exist when its tests run. */
    private static final List<String> PRODUCT = List.of("../allowlist/target/classes", "../injector/target/classes",
            "../config/target/classes", "target/classes");
    /** Package to the packages it uses, over {@link #PRODUCT}. */
    private static final Map<String, Set<String>> PACKAGE_USES = new TreeMap<>();

    @BeforeAll
    static void readDependencies() {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        StringWriter out = new StringWriter();
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "-verbose:class", "-filter:none",
                Path.of("target/classes").toString());
        assertEquals(0, exit, "jdeps failed");
        for (String line : out.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (m.find()) {
                String from = m.group(1).split("\\$")[0];
                String to = m.group(2).split("\\$")[0];
                if (!from.equals(to)) {
                    USES.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                }
            }
        }
        assertTrue(USES.keySet().stream().anyMatch(c -> c.startsWith(BASE + "proxy.")), "jdeps saw no proxy classes: " + out);
        List<String> args = new ArrayList<>(List.of("-verbose:class", "-filter:none"));
        args.addAll(PRODUCT);
        StringWriter all = new StringWriter();
        assertEquals(0, jdeps.run(new PrintWriter(all), new PrintWriter(new StringWriter()), args.toArray(String[]::new)), "jdeps failed");
        for (String line : all.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (m.find() && m.group(1).startsWith(BASE) && m.group(2).startsWith(BASE)) {
                String from = m.group(1).substring(0, m.group(1).lastIndexOf('.'));
                String to = m.group(2).substring(0, m.group(2).lastIndexOf('.'));
                PACKAGE_USES.computeIfAbsent(from, k -> new TreeSet<>());
                if (!from.equals(to)) {
                    PACKAGE_USES.get(from).add(to);
                }
            }
        }
        assertTrue(PACKAGE_USES.containsKey(BASE + "injector.github"), "jdeps saw no injector classes: " + args);
    }

    @Test
    void noPackageCycleInTheProduct() {
        assertEquals(List.of(), stronglyConnected(PACKAGE_USES), "packages that use each other, directly or around a loop");
    }

    /** {@code proxy/} is laid out by side and concern: what stays directly in it is only what every part shares. */
    @Test
    void atMostThirtyFilesDirectlyInProxy() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/java/org/cyverse/mesa/egress/proxy"))) {
            List<String> direct = files.filter(f -> f.toString().endsWith(".java")).map(f -> f.getFileName().toString()).sorted().toList();
            assertTrue(direct.size() <= 30, direct.size() + " files directly in proxy/: " + direct);
        }
    }

    @Test
    void noClassCycleInProxy() {
        assertTrue(USES.keySet().stream().anyMatch(c -> c.startsWith(BASE + "proxy.agent.")), "jdeps saw no class of proxy's packages");
        assertEquals(List.of(), cycles("proxy", true));
    }

    @Test
    void noClassCycleInAdmission() {
        assertEquals(List.of(), cycles("admission", false));
    }

    @Test
    void theAdmissionUsesNoNetty() {
        List<String> netty = new ArrayList<>();
        USES.forEach((from, tos) -> {
            if (from.startsWith(BASE + "admission.")) {
                tos.stream().filter(to -> to.startsWith("io.netty.") || to.startsWith(BASE + "proxy.")).forEach(to -> netty.add(from + " -> " + to));
            }
        });
        assertEquals(List.of(), netty, "the admission is channel-free");
    }

    @Test
    void theAuditUsesNothingOfTheProxy() {
        List<String> back = new ArrayList<>();
        USES.forEach((from, tos) -> {
            if (from.startsWith(BASE + "audit.")) {
                tos.stream().filter(to -> to.startsWith(BASE + "proxy.")).forEach(to -> back.add(from + " -> " + to));
            }
        });
        assertTrue(USES.keySet().stream().anyMatch(c -> c.startsWith(BASE + "audit.")), "jdeps saw no audit classes");
        assertEquals(List.of(), back, "the proxy uses the audit package, never the reverse");
    }

    @Test
    void noSourceFileOver300LinesInProxyOrAdmission() throws IOException {
        List<String> long_ = new ArrayList<>();
        Path sources = Path.of("src/main/java/org/cyverse/mesa/egress");
        int seen = 0;
        for (String pkg : List.of("proxy", "admission")) {
            try (Stream<Path> files = Files.walk(sources.resolve(pkg))) { // every package under it
                for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                    seen++;
                    long lines = Files.readAllLines(file).size();
                    if (lines > 300) {
                        long_.add(sources.relativize(file) + ": " + lines);
                    }
                }
            }
        }
        assertTrue(seen > 50, "read only " + seen + " source files");
        assertEquals(List.of(), long_);
    }

    /**
     * The cycles of more than one class within {@code pkg} (with {@code subpackages}, within it and
     * every package under it), by names relative to {@code pkg}.
     */
    private static List<List<String>> cycles(String pkg, boolean subpackages) {
        String prefix = BASE + pkg + ".";
        Predicate<String> inside = c -> c.startsWith(prefix) && (subpackages || c.indexOf('.', prefix.length()) < 0);
        Map<String, Set<String>> graph = new HashMap<>();
        USES.forEach((from, tos) -> {
            if (inside.test(from)) {
                Set<String> to = new TreeSet<>();
                tos.stream().filter(inside).forEach(to::add);
                graph.put(from, to);
            }
        });
        return stronglyConnected(graph).stream()
                .map(component -> component.stream().map(c -> c.substring(prefix.length())).sorted().toList()).toList();
    }

    /** The strongly connected components of more than one node of {@code graph} (Tarjan), by full names. */
    private static List<List<String>> stronglyConnected(Map<String, Set<String>> graph) {
        List<List<String>> found = new ArrayList<>();
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, found);
            }
        }
        return found;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
            Deque<String> stack, List<List<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                component.sort(null);
                found.add(component);
            }
        }
    }
}
