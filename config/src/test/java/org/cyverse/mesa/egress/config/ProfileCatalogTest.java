package org.cyverse.mesa.egress.config;

import static org.cyverse.mesa.egress.config.ConfigFixtures.CATALOG;
import static org.cyverse.mesa.egress.config.ConfigFixtures.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.cyverse.mesa.egress.allowlist.EgressClass;
import org.cyverse.mesa.egress.allowlist.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The bundled profiles and classes are CONTEXT.md's taxonomy, host for host. */
class ProfileCatalogTest {

    /** CONTEXT.md, "N1 trusted", in its order. */
    private static final List<String> N1 = List.of("llm-api.cyverse.ai", "api.anthropic.com", "mcp.cyverse.ai",
            "mcp-public.cyverse.ai", "de.cyverse.org", "data.cyverse.org", "kc.cyverse.org", "github.com", "api.github.com",
            "objects.githubusercontent.com", "pypi.org", "files.pythonhosted.org", "conda.anaconda.org", "cran.r-project.org",
            "cloud.r-project.org", "registry.npmjs.org", "harbor.cyverse.org");
    /** CONTEXT.md, "N2 CyVerse-only". */
    private static final List<String> N2 = List.of("kc.cyverse.org", "data.cyverse.org", "llm-api.cyverse.ai", "mcp.cyverse.ai",
            "de.cyverse.org");

    private static List<String> hosts(EgressClass egressClass) {
        return egressClass.hosts().stream().map(Object::toString).collect(Collectors.toList());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            P0 | Legacy     | N0
            P1 | Workbench  | N1 N0
            P2 | Background | N1 N2
            P3 | Autonomous | N2
            P4 | Isolated   | N2 N3
            """)
    void bundledProfilesPermitContextsClasses(String name, String title, String egress) {
        Profile profile = CATALOG.profile(name);

        assertEquals(name, profile.name());
        assertEquals(title, profile.title());
        assertEquals(List.of(egress.split(" ")), profile.egress());
    }

    @Test
    void n1HasContextsSeventeenHosts() {
        EgressClass n1 = CATALOG.egressClass("N1");

        assertEquals(17, n1.hosts().size());
        assertEquals(N1, hosts(n1));
        assertEquals("trusted", n1.title());
        assertFalse(n1.anyPublicHost());
        assertEquals(Set.of(80, 443), n1.ports());
    }

    @Test
    void n2HasContextsFiveHosts() {
        EgressClass n2 = CATALOG.egressClass("N2");

        assertEquals(5, n2.hosts().size());
        assertEquals(N2, hosts(n2));
        assertEquals("CyVerse-only", n2.title());
        assertFalse(n2.anyPublicHost());
    }

    @Test
    void n0IsAnyPublicHostAndN3IsNothing() {
        EgressClass n0 = CATALOG.egressClass("N0");
        EgressClass n3 = CATALOG.egressClass("N3");

        assertTrue(n0.anyPublicHost());
        assertEquals(List.of(), n0.hosts());
        assertEquals(Set.of(80, 443), n0.ports());
        assertFalse(n3.anyPublicHost());
        assertEquals(List.of(), n3.hosts());
        assertEquals(List.of(), n3.rules());
    }

    @Test
    void unknownNamesListTheValidOnes() {
        IllegalArgumentException profile = assertThrows(IllegalArgumentException.class, () -> CATALOG.profile("P5"));
        IllegalArgumentException egress = assertThrows(IllegalArgumentException.class, () -> CATALOG.egressClass("N4"));

        assertEquals("unknown profile \"P5\"; valid: P0, P1, P2, P3, P4, or the path of a profile file (*.yaml)", profile.getMessage());
        IllegalArgumentException lowercase = assertThrows(IllegalArgumentException.class, () -> CATALOG.profile("p2"));
        assertEquals("unknown profile \"p2\"; did you mean \"P2\"? valid: P0, P1, P2, P3, P4, or the path of a profile file (*.yaml)",
                lowercase.getMessage());
        assertEquals("unknown egress class \"N4\"; valid: N0, N1, N2, N3", egress.getMessage());
    }

    @Test
    void aProfileFileByPath() {
        Profile site = CATALOG.profile(resource("profiles/site-gpu.yaml").toString());

        assertEquals(new Profile("site-gpu", "Site GPU", List.of("N2", "N3"), List.of("A2")), site);
    }

    @Test
    void aProfileFileNamingAnUnknownClassIsRefusedAtItsLine() {
        Path file = resource("profiles/unknown-class.yaml");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CATALOG.profile(file.toString()));

        assertEquals(file + ":5: egress: unknown egress class \"N7\" (valid: N0, N1, N2, N3)", e.getMessage());
    }

    @Test
    void aProfileFileMayNotPassForABundledProfile() {
        Path file = resource("profiles/bundled-name.yaml");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CATALOG.profile(file.toString()));

        assertTrue(e.getMessage().startsWith(file + ":1: name: \"P2\" is the name of a bundled profile"), e.getMessage());
    }

    @Test
    void aMissingProfileFileSaysSo() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CATALOG.profile("/nonexistent/site.yaml"));

        assertTrue(e.getMessage().startsWith("profile file /nonexistent/site.yaml does not exist"), e.getMessage());
    }
}
