package org.cyverse.mesa.egress.config;

import static org.cyverse.mesa.egress.config.ConfigFixtures.CATALOG;
import static org.cyverse.mesa.egress.config.ConfigFixtures.lines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * broker.openbao from OpenBao's CLI variables: they fill in what the file leaves out; the file
 * wins; BAO_* wins over VAULT_*; without a broker section, BAO_ADDR implies one whose role must
 * still be in the file.
 */
class BrokerEnvironmentTest {

    private static final String CREDENTIAL = "credentials:\n  - name: anthropic\n    hosts: [\"api.anthropic.com\"]\n"
            + "    header: \"x-api-key\"\n    format: \"{secret}\"\n    secret: \"openbao:secret/data/agents/anthropic#api_key\"\n";
    private static final String AUTH = "    auth:\n      method: kubernetes\n      role: vice-analysis\n";

    @TempDir
    Path dir;

    private ConfigResult load(String yaml, Map<String, String> env) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"), "version: 1\nprofile: P2\n" + yaml);
        return new ConfigLoader(CATALOG).load(file, Overrides.NONE, env);
    }

    private MesaConfig.Broker broker(String yaml, Map<String, String> env) throws Exception {
        ConfigResult result = load(yaml, env);
        assertTrue(result.ok(), () -> "expected a valid config, got " + result.problems());
        return result.config().broker();
    }

    @Test
    void theEnvironmentFillsInWhatTheFileLeavesOut() throws Exception {
        MesaConfig.Broker broker = broker("broker:\n  openbao:\n    namespace: \"\"\n" + AUTH + CREDENTIAL,
                Map.of("BAO_ADDR", "https://openbao.openbao.svc:8200", "BAO_NAMESPACE", "vice", "BAO_CACERT", "/etc/openbao/ca.pem"));

        assertEquals("https://openbao.openbao.svc:8200", broker.address());
        assertEquals("vice", broker.namespace());
        assertEquals(Path.of("/etc/openbao/ca.pem"), broker.caCert());
    }

    @Test
    void theFileWinsOverTheEnvironment() throws Exception {
        MesaConfig.Broker broker = broker("broker:\n  openbao:\n    address: https://file.example:8200\n    namespace: fromfile\n"
                + "    ca_cert: ca.pem\n" + AUTH + CREDENTIAL,
                Map.of("BAO_ADDR", "https://env.example:8200", "BAO_NAMESPACE", "fromenv", "BAO_CACERT", "/env/ca.pem"));

        assertEquals("https://file.example:8200", broker.address());
        assertEquals("fromfile", broker.namespace());
        assertEquals(dir.resolve("ca.pem"), broker.caCert());
    }

    @Test
    void baoVariablesWinOverVaultVariables() throws Exception {
        MesaConfig.Broker broker = broker("broker:\n  openbao:\n" + AUTH + CREDENTIAL,
                Map.of("BAO_ADDR", "https://bao.example:8200", "VAULT_ADDR", "https://vault.example:8200",
                        "VAULT_NAMESPACE", "from-vault-name", "BAO_NAMESPACE", ""));

        assertEquals("https://bao.example:8200", broker.address());
        assertEquals("from-vault-name", broker.namespace(), "an empty BAO_NAMESPACE counts as unset");
    }

    @Test
    void theTwoArgumentLoadIgnoresTheEnvironment() throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"), "version: 1\nprofile: P2\nbroker:\n  openbao:\n" + AUTH);
        ConfigResult result = new ConfigLoader(CATALOG).load(file, Overrides.NONE);

        assertEquals(List.of("config.yaml:5: broker.openbao.address: is required"), lines(result, file));
        assertTrue(new ConfigLoader(CATALOG, Map.of("VAULT_ADDR", "https://v:8200")).load(file, Overrides.NONE).ok(),
                "a loader given the environment uses it for every load (reloads too)");
    }

    @Test
    void withoutABrokerSectionBaoAddrImpliesKubernetesAndTheMissingRoleIsNamed() throws Exception {
        ConfigResult result = load(CREDENTIAL, Map.of("BAO_ADDR", "https://openbao.openbao.svc:8200"));

        assertFalse(result.ok());
        assertEquals(1, result.problems().size(), () -> result.problems().toString());
        ConfigProblem problem = result.problems().get(0);
        assertEquals("broker.openbao.auth.role", problem.key());
        assertTrue(problem.message().contains("is required for method kubernetes") && problem.message().contains("BAO_ADDR"),
                problem.message());
    }

    @Test
    void anOpenBaoSecretWithoutBrokerOrEnvironmentStillNeedsTheBroker() throws Exception {
        ConfigResult result = load(CREDENTIAL, Map.of("HOME", "/root"));

        assertEquals(1, result.problems().size());
        assertTrue(result.problems().get(0).message().contains("needs broker.openbao"), result.problems().toString());
    }

    @Test
    void aBadAddressFromTheEnvironmentSaysWhereItCameFrom() throws Exception {
        ConfigResult result = load("broker:\n  openbao:\n" + AUTH + CREDENTIAL, Map.of("VAULT_ADDR", "openbao:8200"));

        assertEquals(1, result.problems().size(), () -> result.problems().toString());
        assertEquals("broker.openbao.address", result.problems().get(0).key());
        assertTrue(result.problems().get(0).message().contains("(from VAULT_ADDR)"), result.problems().get(0).message());
        assertNull(result.config());
    }
}
