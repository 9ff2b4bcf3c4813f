package org.cyverse.mesa.egress.injector;

import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What every {@link Minter} is made with ({@link CredentialKind#minter}).
 *
 * @param secrets reads the minter's own secrets from their sources
 * @param http a client for the issuers that does not follow redirects (what a minter sends must not be carried elsewhere)
 * @param timeout for each call to an issuer
 * @param clock the time minted values are judged by
 * @param values the store's current values, once the store exists ({@code null} before): a minter that exchanges
 *     another credential's value reads it there
 */
public record MintContext(SecretReader secrets, HttpClient http, Duration timeout, Clock clock, Supplier<SecretValues> values) {

    /** A context whose minters read no other credential. */
    public MintContext(SecretReader secrets, HttpClient http, Duration timeout, Clock clock) {
        this(secrets, http, timeout, clock, () -> null);
    }

    /** Reads a secret a minter needs (a master key, an App's private key) from its source; blocks. */
    @FunctionalInterface
    public interface SecretReader {
        Secret read(SecretRef ref) throws SecretUnavailableException;
    }
}
