package org.cyverse.mesa.egress.injector.mint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.MintContext.SecretReader;
import org.cyverse.mesa.egress.injector.Minters;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;

/**
 * LiteLLM virtual keys (CONTEXT.md, "Credentials the proxy handles"): {@code POST /key/generate}
 * with the master key, {@code POST /key/block} (and {@code /key/delete} when configured) to take
 * a key back. The master key is read from its source for every call, sent only to
 * {@code mint.litellm.url}, and never kept.
 *
 * <p>The budget is the analysis's, not the key's: a key minted to replace one that is about to
 * expire gets {@code max_budget} less what the earlier keys spent ({@code GET /key/info}); when
 * that cannot be read, the new key is not minted (the old one stays in use until its expiry, and
 * then the credential is unavailable), so a budget is never silently reset.
 *
 * <p>Each key gets its own {@code key_alias} ({@code <alias>-<random>-<n>}, random per process):
 * LiteLLM refuses a second key with an alias already in use, and the alias is what logs and
 * LiteLLM's own UI name a key by.
 */
public final class LiteLlmMinter implements Minter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String credential;
    private final LiteLlmSpec spec;
    private final SecretReader masterKey;
    private final HttpClient http;
    private final Duration timeout;
    private final AtomicInteger sequence = new AtomicInteger();
    /** Random per process: a restarted proxy's keys must not collide with the aliases of its earlier keys. */
    private final String processTag = String.format("%06x", new SecureRandom().nextInt(1 << 24));
    /** What retired keys spent, in USD; read by {@link #mint} only, which the store runs one at a time. */
    private double spentBefore;

    /**
     * @param masterKey reads the master key, for every call
     * @param http a client that does not follow redirects (the master key must not be carried elsewhere)
     */
    public LiteLlmMinter(String credential, LiteLlmSpec spec, SecretReader masterKey, HttpClient http, Duration timeout) {
        this.credential = credential;
        this.spec = spec;
        this.masterKey = masterKey;
        this.http = http;
        this.timeout = timeout;
    }

    @Override
    public SecretLease mint(SecretLease previous) throws SecretUnavailableException {
        Secret master = master();
        Double budget = spec.maxBudget();
        if (budget != null && previous != null) {
            double spent = spentBefore + spend(master, previous);
            budget = Math.max(0, spec.maxBudget() - spent);
            if (budget <= 0) {
                throw new SecretUnavailableException("credential " + credential + ": the analysis spent its whole max_budget ("
                        + spec.maxBudget() + " USD) at LiteLLM; no new key is minted");
            }
        }
        String alias = spec.keyAlias() + "-" + processTag + "-" + sequence.incrementAndGet();
        ObjectNode body = JSON.createObjectNode();
        if (spec.duration() != null) {
            body.put("duration", spec.duration());
        }
        if (budget != null) {
            body.put("max_budget", budget);
        }
        if (!spec.models().isEmpty()) {
            spec.models().forEach(body.putArray("models")::add);
        }
        ObjectNode metadata = body.putObject("metadata");
        spec.metadata().forEach(metadata::put);
        metadata.put("minted_by", "mesa-egress");
        body.put("key_alias", alias);
        JsonNode answer = call("POST", "/key/generate", body, master, null, "minting key " + alias);
        JsonNode key = answer.get("key");
        if (key == null || !key.isTextual() || key.asText().isEmpty()) {
            throw new SecretUnavailableException("LiteLLM's /key/generate answer for " + alias + " holds no \"key\"");
        }
        if (previous != null && budget != null) {
            spentBefore = spec.maxBudget() - budget;
        }
        return new SecretLease(Secret.of(key.asText()), LiteLlmTimes.expires(answer.get("expires")), alias);
    }

    @Override
    public void retire(SecretLease lease) throws SecretUnavailableException {
        Secret master = master();
        ObjectNode block = JSON.createObjectNode().put("key", lease.secret().reveal());
        call("POST", "/key/block", block, master, lease.secret(), "blocking key " + lease.version());
        if (spec.deleteOnStop()) {
            ObjectNode delete = JSON.createObjectNode();
            delete.putArray("keys").add(lease.secret().reveal());
            call("POST", "/key/delete", delete, master, lease.secret(), "deleting key " + lease.version());
        }
    }

    @Override
    public String describe(SecretLease lease) {
        return "LiteLLM key " + lease.version();
    }

    /** What {@code lease}'s key has spent, in USD ({@code GET /key/info}). */
    private double spend(Secret master, SecretLease lease) throws SecretUnavailableException {
        String query = "/key/info?key=" + URLEncoder.encode(lease.secret().reveal(), StandardCharsets.UTF_8);
        JsonNode answer = call("GET", query, null, master, lease.secret(), "reading the spend of key " + lease.version());
        JsonNode spend = answer.path("info").path("spend");
        if (!spend.isNumber()) {
            spend = answer.path("spend");
        }
        if (!spend.isNumber()) {
            throw new SecretUnavailableException("LiteLLM's /key/info answer for " + lease.version() + " holds no info.spend");
        }
        return spend.asDouble();
    }

    private Secret master() throws SecretUnavailableException {
        try {
            return masterKey.read(spec.masterKey());
        } catch (SecretUnavailableException e) {
            throw new SecretUnavailableException("the LiteLLM master key (" + spec.masterKey() + ") is unavailable: " + e.getMessage(),
                    e.revoked(), null);
        }
    }

    /**
     * One call; the answer's JSON on a 2xx, else an exception naming the call, the status and
     * LiteLLM's message (with the master key and {@code key}, the virtual key the call is about, scrubbed).
     */
    private JsonNode call(String method, String pathAndQuery, JsonNode body, Secret master, Secret key, String what)
            throws SecretUnavailableException {
        URI uri = URI.create(stripSlash(spec.url().toString()) + pathAndQuery);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Authorization", "Bearer " + master.reveal())
                .header("Accept", "application/json");
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        String where = "LiteLLM at " + spec.url() + ", " + what;
        HttpResponse<String> response = Minters.send(http, request.build(), where, text -> scrub(text, master, key));
        int status = response.statusCode();
        if (status / 100 != 2) {
            throw new SecretUnavailableException(where + ": " + status + " " + LiteLlmErrors.message(response.body(), master, key));
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SecretUnavailableException(where + ": " + status + " with a body that is not JSON");
        }
    }

    static String scrub(String text, Secret master, Secret key) {
        String scrubbed = text.replace(master.reveal(), "[master key]");
        return key == null ? scrubbed : scrubbed.replace(key.reveal(), "[virtual key]");
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
