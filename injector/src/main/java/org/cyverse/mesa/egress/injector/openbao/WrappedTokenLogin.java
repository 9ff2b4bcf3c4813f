package org.cyverse.mesa.egress.injector.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Method {@code wrapped}: a response-wrapped token the launcher handed over in
 * {@code wrapped_token_file}, validated as OpenBao's "Response wrapping" concepts page says:
 * look it up first ({@code sys/wrapping/lookup}, unauthenticated, which does not use it up) and
 * refuse it unless it was created by a login or a token-create call, then unwrap it once with the
 * wrapping token as {@code X-Vault-Token}.
 *
 * <p>A wrapping token that OpenBao does not know (already unwrapped, or expired) is a startup
 * error that says it may have been intercepted: a wrapped token works once, so if this proxy did
 * not unwrap it, someone else did. Tokens known to be spent are remembered (by digest) and
 * refused without asking OpenBao again; a new file content is tried afresh.
 */
final class WrappedTokenLogin implements LoginMethod {

    private static final Logger LOG = Logger.getLogger(WrappedTokenLogin.class.getName());

    /**
     * Where a wrapped client token legitimately comes from: any auth method's login, or the token
     * store's create endpoints. {@code sys/wrapping/wrap} or a {@code cubbyhole} path would mean
     * someone re-wrapped a token they had seen.
     */
    static final Pattern EXPECTED_CREATION_PATH = Pattern.compile(
            "auth/[^/]+/login(/[^/]+)*|auth/token/create(-orphan)?(/[^/]+)?");

    private final OpenBaoClient client;
    private final OpenBaoSettings settings;
    /** Digests (never values) of wrapping tokens that were unwrapped or that OpenBao said are invalid. */
    private final Set<String> spent = ConcurrentHashMap.newKeySet();

    WrappedTokenLogin(OpenBaoClient client, OpenBaoSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    @Override
    public AuthToken login() throws OpenBaoException {
        String wrapping = TokenFiles.read(settings.wrappedTokenFile(), "wrapped token file");
        String digest = digest(wrapping);
        if (spent.contains(digest)) {
            throw new OpenBaoException("the wrapped token in " + settings.wrappedTokenFile()
                    + " was already used (unwrapped, or refused by OpenBao as invalid); a wrapped token works once:"
                    + " the launcher must hand over a new one", TokenFiles.LOCAL);
        }
        JsonNode info;
        try {
            info = client.wrappingLookup(wrapping);
        } catch (OpenBaoException e) {
            if (e.status() == 400) {
                spent.add(digest);
                String message = "the wrapped token in " + settings.wrappedTokenFile()
                        + " is not valid or does not exist at OpenBao: it was already unwrapped, or it expired."
                        + " If this proxy did not unwrap it, someone may have intercepted it: check OpenBao's audit log"
                        + " before handing over a new one";
                LOG.severe(message);
                throw new OpenBaoException(message, 400);
            }
            throw e;
        }
        String path = info.path("data").path("creation_path").asText("");
        if (!EXPECTED_CREATION_PATH.matcher(path).matches()) {
            spent.add(digest); // never unwrap it, whatever happens to the file's timestamps
            String message = "the wrapped token in " + settings.wrappedTokenFile() + " was created at \"" + path
                    + "\", not by a login (auth/<mount>/login) or auth/token/create: refused unopened,"
                    + " since it may be a re-wrapped copy of a token someone has seen";
            LOG.severe(message);
            throw new OpenBaoException(message, TokenFiles.LOCAL);
        }
        try {
            AuthToken token = client.unwrap(wrapping);
            spent.add(digest);
            LOG.info("unwrapped the wrapped token from " + settings.wrappedTokenFile() + " (created at " + path + ")");
            return token;
        } catch (OpenBaoException e) {
            if (e.status() == 400) {
                spent.add(digest); // lost between lookup and unwrap: someone else was faster
            }
            throw e;
        }
    }

    @Override
    public boolean canLogInAgain(AuthToken current) {
        try {
            return !spent.contains(digest(TokenFiles.read(settings.wrappedTokenFile(), "wrapped token file")));
        } catch (OpenBaoException e) {
            return false;
        }
    }

    @Override
    public String describe() {
        return "wrapped token from " + settings.wrappedTokenFile();
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
