package org.cyverse.mesa.egress.approval;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.SecretLease;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.SecretSource;
import org.cyverse.mesa.egress.injector.SecretSources;
import org.cyverse.mesa.egress.injector.SecretUnavailableException;
import org.cyverse.mesa.egress.injector.ServiceClients;

/**
 * {@code approvals.webhook}: tells an outside inbox (the Discovery Environment, a chat bot) of
 * each approval event with a signed POST. Never on an event loop: {@link #send} only queues; the
 * deliveries run on the webhook's own thread, each retried with back-off (1 s doubling to 60 s,
 * jittered) for up to {@value #ATTEMPTS} attempts. The queue is bounded; what does not fit is
 * dropped and counted.
 *
 * <p>The body is JSON ({@code event}, {@code sequence}, {@code sent_at}, {@code profile},
 * {@code approval}); {@code X-Mesa-Egress-Signature: t=<unix seconds>,v1=<hex>} is the
 * HMAC-SHA256, keyed with the webhook secret, of {@code <t>.<body>}, so a receiver can verify
 * both the body and its age (Stripe's scheme).
 */
public final class ApprovalWebhook {

    private static final Logger LOG = Logger.getLogger(ApprovalWebhook.class.getName());
    static final int ATTEMPTS = 8;
    static final int QUEUE = 1000;
    public static final String SIGNATURE_HEADER = "X-Mesa-Egress-Signature";

    private final URI url;
    private final SecretRef secret;
    private final Map<String, SecretSource> sources;
    private final ScheduledExecutorService background;
    private final Consumer<String> outcomes;
    private final Clock clock;
    private final HttpClient client;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong sequence = new AtomicLong();
    private volatile SecretLease key;
    private volatile Instant keyFetched = Instant.MIN;
    private volatile boolean closed;
    /** The key is read again at least this often, so a rotated secret file is used. */
    static final Duration KEY_REFRESH = Duration.ofSeconds(60);

    /**
     * @param outcomes told {@code delivered}, {@code retried}, {@code failed} (gave up) or {@code dropped} (queue full)
     */
    public ApprovalWebhook(URI url, SecretRef secret, Map<String, SecretSource> sources, SSLContext tls, ScheduledExecutorService background,
            Consumer<String> outcomes, Clock clock) {
        this.url = url.getPath().isEmpty() ? url.resolve("/") : url;
        this.secret = secret;
        this.sources = sources;
        this.background = background;
        this.outcomes = outcomes;
        this.clock = clock;
        this.client = ServiceClients.builder(tls, Duration.ofSeconds(5)).build();
    }

    /** Whether this webhook sends to {@code other} with the key {@code otherSecret} (a reload keeps it then). */
    public boolean same(URI other, SecretRef otherSecret) {
        return (other.getPath().isEmpty() ? other.resolve("/") : other).equals(url) && otherSecret.equals(secret);
    }

    /** Queues the event {@code outcome} of {@code approval}; returns at once. */
    public void send(String outcome, Approval approval, String profile) {
        if (closed) {
            return;
        }
        if (queued.incrementAndGet() > QUEUE) {
            queued.decrementAndGet();
            outcomes.accept("dropped");
            LOG.warning("approvals.webhook: " + QUEUE + " deliveries are waiting; dropped approval." + outcome + " of " + approval.id());
            return;
        }
        ObjectNode body = ApprovalJson.JSON.createObjectNode();
        body.put("event", "approval." + outcome);
        body.put("sequence", sequence.incrementAndGet());
        body.put("sent_at", clock.instant().toString());
        body.put("profile", profile);
        body.set("approval", ApprovalJson.of(approval));
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        String delivery = UUID.randomUUID().toString();
        run(() -> attempt(delivery, "approval." + outcome, bytes, 1), 0);
    }

    /** Stops: deliveries still waiting are dropped (a reload that changed the webhook, a stop). */
    public void close() {
        closed = true;
    }

    /** Runs {@code task} on the webhook's thread after {@code delayMillis}; a delivery that cannot be scheduled is given up, counted. */
    private void run(Runnable task, long delayMillis) {
        try {
            background.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            queued.decrementAndGet();
            outcomes.accept("dropped");
        }
    }

    private void attempt(String delivery, String event, byte[] body, int attempt) {
        if (closed) {
            queued.decrementAndGet();
            outcomes.accept("dropped");
            return;
        }
        try {
            deliver(delivery, event, body, attempt);
        } catch (RuntimeException e) {
            retryOrGiveUp(delivery, event, body, attempt, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private void deliver(String delivery, String event, byte[] body, int attempt) {
        HttpRequest request;
        try {
            long t = clock.instant().getEpochSecond();
            request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .header("X-Mesa-Egress-Event", event)
                    .header("X-Mesa-Egress-Delivery", delivery)
                    .header(SIGNATURE_HEADER, "t=" + t + ",v1=" + sign(key().reveal(), t, body))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        } catch (SecretUnavailableException e) {
            retryOrGiveUp(delivery, event, body, attempt, "the webhook secret is unavailable (" + e.getMessage() + ")");
            return;
        }
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
            if (failure == null && response.statusCode() / 100 == 2) {
                queued.decrementAndGet();
                outcomes.accept("delivered");
                return;
            }
            String why = failure != null ? failure.getClass().getSimpleName() + ": " + failure.getMessage() : "HTTP " + response.statusCode();
            retryOrGiveUp(delivery, event, body, attempt, why);
        });
    }

    private void retryOrGiveUp(String delivery, String event, byte[] body, int attempt, String why) {
        if (attempt >= ATTEMPTS) {
            queued.decrementAndGet();
            outcomes.accept("failed");
            LOG.warning("approvals.webhook: gave up delivering " + event + " (" + delivery + ") after " + attempt + " attempts: " + why);
            return;
        }
        outcomes.accept("retried");
        long base = Math.min(60_000, 1000L << (attempt - 1));
        long wait = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        LOG.info("approvals.webhook: " + event + " (" + delivery + ") not delivered (" + why + "); retrying in " + wait + " ms");
        run(() -> attempt(delivery, event, body, attempt + 1), wait);
    }

    private Secret key() throws SecretUnavailableException {
        SecretLease lease = key;
        Instant now = clock.instant();
        if (lease == null || lease.expiresAt() != null && !now.isBefore(lease.expiresAt()) || !now.isBefore(keyFetched.plus(KEY_REFRESH))) {
            lease = SecretSources.fetch(sources, secret);
            key = lease;
            keyFetched = now;
        }
        return lease.secret();
    }

    /** The hex HMAC-SHA256 of {@code <t>.<body>} under {@code key}: what a receiver recomputes. */
    public static String sign(String key, long t, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
