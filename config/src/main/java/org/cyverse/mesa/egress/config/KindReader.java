package org.cyverse.mesa.egress.config;

import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.injector.KindSpec;
import org.cyverse.mesa.egress.injector.SecretRef;

/**
 * How the config file reads one credential kind's block: the key under a credential that makes
 * it of the kind, and what the block gives the credential. One per
 * {@link org.cyverse.mesa.egress.injector.CredentialKind}, listed once in {@link CredentialKinds}.
 */
interface KindReader {

    /** The credential's key whose presence makes it of this kind ({@code github_app}, {@code aws_sigv4}, {@code mint}). */
    String key();

    /** Whether a credential of this kind may leave out {@code hosts}: the block then gives them ({@link Read#defaultHosts}). */
    default boolean defaultsHosts() {
        return false;
    }

    /**
     * Reads the block of {@code credential}, reporting problems there (a key of the credential
     * the kind has no use for included).
     *
     * @return what was read, or {@code null} when a problem was reported
     */
    Read read(MapReader credential, Context context);

    /**
     * Once every credential was read: problems between them (a credential that takes another's
     * value names one that exists and can give it), reported on {@link CredentialReader.Entry#source}.
     */
    default void acrossEntries(List<CredentialReader.Entry> entries) {}

    /**
     * What a reader is given.
     *
     * @param name the credential's name, or {@code null} when it has none (a problem already)
     * @param key where the credential is, e.g. {@code credentials[0]}
     * @param broker whether {@code broker.openbao} is configured, which {@code openbao:} secrets need
     * @param environment what {@code ${VAR}} expands from
     * @param sentinels the sentinels named so far, each with the credential that named it (a kind that
     *     names its sentinel in its block registers it here)
     */
    record Context(String name, String key, boolean broker, Map<String, String> environment, Map<String, String> sentinels) {}

    /**
     * What a block gives its credential.
     *
     * @param spec the block itself
     * @param secret the credential's {@code secret}, when the block names it (the real key of {@code aws_sigv4}); else
     *     {@code null}: a minting kind has none, another reads the credential's own {@code secret}
     * @param sentinel the credential's sentinel, when the block names it; else {@code null}
     * @param defaultHosts the hosts when the credential names none (kinds that {@link #defaultsHosts})
     * @param defaultPort the only port when the credential names neither hosts nor ports, or {@code null} for the default
     * @param defaultHeader the header set when the credential names none ({@code Authorization} for oauth2), or {@code null}
     */
    record Read(KindSpec spec, SecretRef secret, String sentinel, List<String> defaultHosts, Integer defaultPort, String defaultHeader) {
        Read(KindSpec spec) {
            this(spec, null, null, List.of(), null, null);
        }

        Read(KindSpec spec, SecretRef secret, String sentinel, List<String> defaultHosts, Integer defaultPort) {
            this(spec, secret, sentinel, defaultHosts, defaultPort, null);
        }
    }
}
