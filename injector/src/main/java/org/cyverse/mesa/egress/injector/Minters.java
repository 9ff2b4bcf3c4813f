package org.cyverse.mesa.egress.injector;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;

/** Makes the minter of every minted credential of a config, each by its {@link CredentialKind}. */
public final class Minters {

    /** Connect and answer timeout of each call to an issuer. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Minters() {}

    /**
     * @param sources where the minters' own secrets (master keys) come from, by scheme
     * @param tls the trust for the issuers' certificates (the system's plus {@code tls.upstream_ca})
     * @return a minter per minted credential, by credential name
     */
    public static Map<String, Minter> create(List<CredentialSpec> credentials, Map<String, SecretSource> sources, SSLContext tls) {
        return create(credentials, sources, tls, () -> null);
    }

    /**
     * @param values the store's values once it exists, for minters that exchange another credential's value
     */
    public static Map<String, Minter> create(List<CredentialSpec> credentials, Map<String, SecretSource> sources, SSLContext tls,
            Supplier<SecretValues> values) {
        Map<String, Minter> minters = new LinkedHashMap<>();
        MintContext context = null;
        for (CredentialSpec spec : credentials) {
            if (!spec.minted()) {
                continue;
            }
            if (context == null) {
                context = new MintContext(ref -> SecretSources.fetch(sources, ref).secret(),
                        ServiceClients.builder(tls, TIMEOUT).version(HttpClient.Version.HTTP_1_1).build(), TIMEOUT, Clock.systemUTC(), values);
            }
            Minter minter = spec.kind().kind().minter(spec, context);
            if (minter != null) {
                minters.put(spec.name(), minter);
            }
        }
        return minters;
    }

    /**
     * One call to an issuer (blocking): a failure to get an answer becomes the credential's
     * unavailability, its message led by {@code where} and passed through {@code scrub} (an
     * exception's text may quote what was sent), never an exception of the client's.
     */
    public static HttpResponse<String> send(HttpClient http, HttpRequest request, String where, UnaryOperator<String> scrub)
            throws SecretUnavailableException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new SecretUnavailableException(where + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " (" + scrub.apply(e.getMessage()) + ")"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SecretUnavailableException(where + ": interrupted");
        }
    }
}
