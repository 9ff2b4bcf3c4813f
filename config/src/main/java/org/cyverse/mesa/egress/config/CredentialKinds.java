package org.cyverse.mesa.egress.config;

import java.util.List;

/**
 * The credential kinds a config file may name, each by its reader, in the order a credential is
 * judged: the first kind whose key a credential has makes it of that kind (a key of another kind
 * beside it is then reported by the kind's reader). A new kind is one line here.
 */
final class CredentialKinds {

    static final List<KindReader> READERS = List.of(
            new GitHubAppReader(),
            new SigV4Reader(),
            new MintReader(),
            new OAuth2Reader());

    private CredentialKinds() {}

    /** The reader of the first kind whose key {@code credential} has, or {@code null} for a plain secret. */
    static KindReader of(MapReader credential) {
        return READERS.stream().filter(r -> credential.present(r.key())).findFirst().orElse(null);
    }

    /** Every kind's key, as a credential may hold them. */
    static List<String> keys() {
        return READERS.stream().map(KindReader::key).toList();
    }
}
