package org.cyverse.mesa.egress.config;

import static org.cyverse.mesa.egress.config.ConfigFixtures.lines;
import static org.cyverse.mesa.egress.config.ConfigFixtures.load;
import static org.cyverse.mesa.egress.config.ConfigFixtures.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One broken file per problem kind (test resources {@code config/broken/}): each must be refused
 * with exactly one problem, at the line and key a person has to fix, saying what is wrong.
 */
class BrokenConfigTest {

    /** file | expected {@code LINE: key:} after {@code FILE:} | a fragment of the message. */
    private static final String CASES = """
            admin-open-without-token.yaml | 3: admin: | listens on 0.0.0.0, beyond loopback, without admin.token_file
            syntax.yaml | 4: yaml: | column 8: a ':' here cannot start a value: indent this line like the key above it
            syntax-tab.yaml | 4: yaml: | column 1: a tab cannot indent YAML: indent with spaces
            syntax-unclosed-list.yaml | 5: yaml: | column 12: the list opened with '[' here is not closed (expected ',' or ']', but got : on line 6): close it with ']'
            syntax-unclosed-map.yaml | 3: yaml: | column 9: the map opened with '{' here is not closed
            syntax-unclosed-quote.yaml | 4: yaml: | column 11: the quoted string that starts here has no closing quote (the file ends before it is closed)
            syntax-no-colon.yaml | 3: yaml: | column 1: this line is neither "key: value" nor a list item
            empty.yaml | 1: file: | is empty
            comments-only.yaml | 1: file: | is empty
            not-a-map.yaml | 2: file: | expected a map of settings
            two-documents.yaml | 3: yaml: | a second YAML document
            alias.yaml | 4: yaml: | aliases (*h) are not supported
            version-missing.yaml | 2: version: | is required: start the file with version: 1
            version-wrong.yaml | 1: version: | must be 1
            unknown-key.yaml | 2: profil: | did you mean "profile"?
            unknown-nested-key.yaml | 4: allow[0].port: | did you mean "ports"?
            unknown-key-no-suggestion.yaml | 3: limits.bandwidth: | unknown key (known here: max_connections, max_header_bytes, header_timeout, idle_timeout, scan_hold_bytes, scan_hold_total_bytes, upstream_first_byte_timeout, websocket_max_message_bytes, websocket_idle_timeout)
            duplicate-key.yaml | 3: profile: | duplicate key (first at line 2)
            wrong-type-list.yaml | 2: allow: | expected a list, got the string "example.org"
            wrong-type-ports.yaml | 4: allow[0].ports: | expected a list, got the number 443; write [443]
            wrong-type-map.yaml | 2: limits: | expected a map of max_connections
            wrong-type-string.yaml | 2: profile: | expected a string, got a list
            wrong-type-bool.yaml | 6: credentials[0].allow_plaintext: | expected true or false, got the string "false"
            allow-entry-not-map.yaml | 3: allow[0]: | expected a map such as {host: example.org
            profile-unknown.yaml | 2: profile: | unknown profile "P9"; valid: P0, P1, P2, P3, P4
            profile-file-missing.yaml | 2: profile: | no-such-profile.yaml does not exist
            egress-outside-profile.yaml | 3: egress: | "N1" is outside profile P3 (Autonomous), which permits N2
            listen-bad.yaml | 2: listen: | expected HOST:PORT
            admin-same-as-listen.yaml | 3: admin: | is the same address as listen
            allow-host-missing.yaml | 3: allow[0].host: | is required
            allow-host-bad.yaml | 3: allow[0].host: | '*' is only allowed as a whole first label
            allow-port-range.yaml | 6: allow[0].ports: | port 70000 is out of range 1..65535
            allow-ports-empty.yaml | 4: allow[0].ports: | is empty; omit it for the default [80, 443]
            allow-method-lowercase.yaml | 4: allow[0].methods: | write POST
            allow-path-bad.yaml | 4: allow[0].paths: | must start with /
            tls-none-credential.yaml | 7: credentials[0]: | could never be injected over HTTPS
            allow-under-n3.yaml | 4: allow: | egress class N3 (none) lets nothing leave
            deny-host-bad.yaml | 3: deny[0].host: | *example.org
            network-cidr-bad.yaml | 3: network.allow_private: | has host bits set
            duration-no-unit.yaml | 3: network.dns_timeout: | needs a unit: write e.g. 5s
            duration-bad.yaml | 3: limits.idle_timeout: | "1 minute" is not a duration
            duration-zero.yaml | 3: network.connect_timeout: | must be longer than zero
            broker-kv-refresh-zero.yaml | 5: broker.openbao.kv_refresh: | must be longer than zero
            tls-half-ca.yaml | 3: tls.ca_cert: | is given without tls.ca_key; give both, or neither
            tls-intercept-bad.yaml | 3: tls.intercept: | must be auto, all or none
            audit-sink-empty.yaml | 3: audit.sink: | must be stdout or a file path
            limits-header-bytes.yaml | 3: limits.max_header_bytes: | must be between 1024 and 1048576, got 100
            limits-scan-hold-bytes.yaml | 3: limits.scan_hold_bytes: | must be between 0 and 67108864, got 1073741824
            limits-scan-hold-total.yaml | 3: limits.scan_hold_total_bytes: | must be at least 65536, got 100
            limits-websocket-message.yaml | 3: limits.websocket_max_message_bytes: | must be between 1024 and 268435456, got 100
            limits-websocket-idle-unitless.yaml | 3: limits.websocket_idle_timeout: | needs a unit: write e.g. 30s or 30ms
            dlp-mode-bad.yaml | 3: dlp.mode: | must be off, audit or block, got "strict"
            dlp-rule-unknown.yaml | 4: dlp.patterns[1]: | no built-in rule github-token (known: aws-access-token, github-pat
            dlp-regex-bad.yaml | 6: dlp.patterns[0].regex: | is not a valid regular expression: Unclosed character class
            limits-connections-zero.yaml | 3: limits.max_connections: | must be at least 1, got 0
            credential-entry-not-map.yaml | 3: credentials[0]: | expected a map such as {name: anthropic
            credential-name-missing.yaml | 3: credentials[0].name: | is required
            credential-name-bad.yaml | 3: credentials[0].name: | may hold only a-z, 0-9, _ and -
            credential-name-duplicate.yaml | 6: credentials[1].name: | "github" is already the name of credentials[0]
            credential-hosts-missing.yaml | 3: credentials[0].hosts: | is required: the only destinations this credential may reach
            credential-hosts-empty.yaml | 4: credentials[0].hosts: | must name at least one host
            credential-format-no-secret.yaml | 6: credentials[0].format: | must contain {secret}
            credential-header-bad.yaml | 6: credentials[0].header: | "x api key" is not a header name
            credential-secret-missing.yaml | 3: credentials[0].secret: | is required
            credential-secret-scheme.yaml | 5: credentials[0].secret: | unknown secret scheme "vault"
            credential-openbao-without-broker.yaml | 5: credentials[0].secret: | needs broker.openbao
            credential-sentinel-duplicate.yaml | 10: credentials[1].sentinel: | "proxy-injected" is already the sentinel of credentials[0]
            credential-host-not-allowed.yaml | 5: credentials[0].hosts: | api.openai.com is not allowed on port 443 in profile P3, egress class N2 (CyVerse-only); add an allow entry
            credential-host-denied.yaml | 6: credentials[0].hosts: | api.github.com is refused by deny[0]
            credential-port-not-allowed.yaml | 4: credentials[0].hosts: | api.github.com is allowed, but not on port 8443
            credential-cidr-not-covered.yaml | 7: credentials[0].hosts: | 10.0.0.0/8 is not covered by a CIDR rule on port 443
            credential-wildcard-not-covered.yaml | 6: credentials[0].hosts: | *.example.org is not covered by a *.suffix rule on port 443
            broker-openbao-missing.yaml | 3: broker.openbao: | is required under broker
            broker-address-missing.yaml | 4: broker.openbao.address: | is required
            broker-address-not-url.yaml | 4: broker.openbao.address: | must be an http(s) URL
            broker-auth-missing.yaml | 4: broker.openbao.auth: | is required: method kubernetes, jwt, token or wrapped
            broker-method-bad.yaml | 6: broker.openbao.auth.method: | must be kubernetes, jwt, token or wrapped, got "ldap"
            broker-kubernetes-no-role.yaml | 6: broker.openbao.auth.role: | is required for method kubernetes
            broker-jwt-no-file.yaml | 6: broker.openbao.auth.jwt_file: | is required for method jwt
            broker-token-no-file.yaml | 7: broker.openbao.auth.token_file: | is required for method token
            broker-wrapped-no-file.yaml | 6: broker.openbao.auth.wrapped_token_file: | is required for method wrapped
            broker-field-unused.yaml | 8: broker.openbao.auth.role: | is not used by method token
            sigv4-sentinel-id-bad.yaml | 7: credentials[0].aws_sigv4.sentinel_access_key_id: | the key id is written as itself, not as a secret reference
            sigv4-secret-missing.yaml | 7: credentials[0].aws_sigv4.secret_access_key: | is required
            sigv4-and-secret.yaml | 6: credentials[0].secret: | an aws_sigv4 credential takes its keys from the aws_sigv4 block
            sigv4-real-is-sentinel.yaml | 9: credentials[0].aws_sigv4.access_key_id: | is the sentinel_access_key_id
            sigv4-session-token.yaml | 11: credentials[0].aws_sigv4.session_token: | give access_key_id as a reference read with the secret
            sigv4-token-literal.yaml | 11: credentials[0].aws_sigv4.session_token: | must be a secret reference (file:, env: or openbao:), never the token itself
            sigv4-token-other-path.yaml | 17: credentials[0].aws_sigv4.session_token: | must be read from the same OpenBao path as secret_access_key (aws/creds/osn)
            sigv4-key-id-other-scheme.yaml | 15: credentials[0].aws_sigv4.access_key_id: | must be read from the same OpenBao path as secret_access_key
            github-repositories-missing.yaml | 7: credentials[0].github_app.repositories: | is required: the job's repositories
            github-two-owners.yaml | 10: credentials[0].github_app.repositories: | an installation token covers one account's repositories
            github-branch-bad.yaml | 11: credentials[0].github_app.branch: | must not hold ".."
            github-branch-missing.yaml | 7: credentials[0].github_app.branch: | is required: the branch the job may push
            github-installation-bad.yaml | 9: credentials[0].github_app.installation_id: | must be a positive whole number
            github-repository-bad.yaml | 10: credentials[0].github_app.repositories: | is not owner/name
            github-permission-bad.yaml | 11: credentials[0].github_app.permissions.contents: | must be read, write or admin
            github-and-secret.yaml | 6: credentials[0].secret: | a github_app credential's token is minted by the proxy
            github-api-plain-http.yaml | 12: credentials[0].github_app.api_url: | must use https
            mint-url-plain-http.yaml | 8: credentials[0].mint.litellm.url: | must use https: the master key goes with every call
            mint-url-missing.yaml | 8: credentials[0].mint.litellm.url: | is required
            mint-duration-bad.yaml | 10: credentials[0].mint.litellm.duration: | must be a whole number and s, m, h, d, w or mo
            mint-budget-bad.yaml | 10: credentials[0].mint.litellm.max_budget: | must be a positive number of USD
            mint-and-secret.yaml | 6: credentials[0].secret: | a minted credential has no secret
            oauth2-token-url-plain-http.yaml | 7: credentials[0].oauth2.token_url: | must use https: the client's credentials and the user's tokens go with every call
            oauth2-refresh-token-missing.yaml | 10: credentials[0].oauth2.refresh_token: | is required by the refresh_token grant
            oauth2-audience-on-refresh.yaml | 12: credentials[0].oauth2.audience: | the refresh_token grant requests no audience
            oauth2-grant-unknown.yaml | 10: credentials[0].oauth2.grant: | must be one of refresh_token | client_credentials | token_exchange | jwt_bearer, got "password"
            oauth2-token-url-and-issuer.yaml | 8: credentials[0].oauth2.issuer: | give token_url or issuer, not both
            oauth2-client-credentials-public.yaml | 8: credentials[0].oauth2.client_id: | the client_credentials grant needs a confidential client
            oauth2-subject-token-missing.yaml | 10: credentials[0].oauth2.subject_token: | is required by the token_exchange grant
            oauth2-refresh-token-literal.yaml | 11: credentials[0].oauth2.refresh_token: | must be a secret reference (file:, env: or openbao:), never the value itself
            oauth2-and-secret.yaml | 6: credentials[0].secret: | an oauth2 credential has no secret
            oauth2-subject-credential-unknown.yaml | 11: credentials[0].oauth2.subject_token: | names no credential of this file ("kc-usr")
            oauth2-subject-credential-not-oauth2.yaml | 14: credentials[1].oauth2.subject_token: | names credential llm, which is not an oauth2 credential
            sentinel-auto-plain.yaml | 6: credentials[0].sentinel: | auto is for kinds that shape their own placeholder (oauth2)
            mint-metadata-unset.yaml | 10: credentials[0].mint.litellm.metadata.analysis: | ${MESA_TEST_UNSET_VARIABLE} is not set
            mint-kind-unknown.yaml | 7: credentials[0].mint.openai: | unknown key
            mint-master-key-openbao-without-broker.yaml | 9: credentials[0].mint.litellm.master_key: | needs broker.openbao
            admin-key-unknown.yaml | 4: admin.tokn_file: | did you mean "token_file"?
            admin-listen-bad.yaml | 3: admin.listen: | expected HOST:PORT
            limits-empty.yaml | 7: credentials[0].limits: | sets no limit; give at least one of requests_per_minute
            limits-rate-zero.yaml | 8: credentials[0].limits.requests_per_minute: | must be between 1 and 1000000, got 0
            limits-size-bad.yaml | 8: credentials[0].limits.response_bytes_per_hour: | "10 megs" is not a size
            limits-key-unknown.yaml | 8: credentials[0].limits.requests_per_hour: | unknown key (known here: requests_per_minute
            approvals-under-a2.yaml | 5: approvals.enabled: | approvals are for A1 profiles (P1, P2); profile P3 is policy-only
            approvals-without-token.yaml | 4: approvals.enabled: | approvals need admin.token_file
            approvals-hold-too-long.yaml | 6: approvals.hold: | must be at most 5m
            approvals-webhook-plain-http.yaml | 7: approvals.webhook.url: | must use https
            approvals-ttl-no-unit.yaml | 6: approvals.pending_ttl: | needs a unit
            limits-size-too-large.yaml | 8: credentials[0].limits.request_bytes_per_hour: | must be at most 4 EiB
            limits-concurrent-list.yaml | 8: credentials[0].limits.concurrent: | expected a whole number
            """;

    static Stream<Arguments> cases() {
        return CASES.lines().filter(line -> !line.isBlank()).map(line -> {
            String[] cells = line.split("\\|", 3);
            return Arguments.of(cells[0].trim(), cells[1].trim(), cells[2].trim());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reportsTheProblemAtItsLineAndKey(String file, String lineAndKey, String fragment) {
        Path path = resource("broken/" + file);
        ConfigResult result = load(path, Overrides.NONE);

        List<String> problems = lines(result, path);
        assertFalse(result.ok(), file + " was accepted");
        assertNull(result.config());
        assertEquals(1, problems.size(), () -> "expected one problem, got:\n" + String.join("\n", problems));
        String problem = problems.get(0);
        assertTrue(problem.startsWith(file + ":" + lineAndKey + " "), () -> "expected " + file + ":" + lineAndKey + " ..., got " + problem);
        assertTrue(problem.contains(fragment), () -> "expected \"" + fragment + "\" in " + problem);
    }

    @Test
    void everyBrokenFileHasACase() throws IOException {
        Set<String> listed = cases().map(a -> (String) a.get()[0]).collect(Collectors.toCollection(TreeSet::new));
        Set<String> present;
        try (Stream<Path> files = Files.list(resource("broken"))) {
            present = files.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(present, listed);
    }

    @Test
    void reportsEveryProblemOfAFileInFileOrder() {
        Path path = resource("broken/several/problems.yaml");
        ConfigResult result = load(path, Overrides.NONE);

        assertEquals(List.of(
                "problems.yaml:2: version: must be 1 (the only config format this proxy reads), got the number 2",
                "problems.yaml:6: allow[0].ports: port 0 is out of range 1..65535",
                "problems.yaml:8: network.dns_timout: unknown key; did you mean \"dns_timeout\"?",
                "problems.yaml:10: limits.idle_timeout: needs a unit: write e.g. 60s or 60ms",
                "problems.yaml:14: credentials[0].secret: unknown secret scheme \"vault\" (expected file:, env: or openbao:)"),
                lines(result, path));
    }

    @Test
    void aMissingFileIsAProblemNotAnException() {
        Path path = resource("broken").resolve("no-such-config.yaml");
        ConfigResult result = load(path, Overrides.NONE);

        assertEquals(List.of("no-such-config.yaml: file: does not exist"), lines(result, path));
    }
}
