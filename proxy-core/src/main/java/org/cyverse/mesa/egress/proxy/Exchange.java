package org.cyverse.mesa.egress.proxy;

import java.time.Instant;
import org.cyverse.mesa.egress.allowlist.Reason;

/**
 * What the audit log and the metrics learn about one request or tunnel while it runs. Mutable,
 * confined to the client channel's event loop; {@link #finish} emits it once.
 */
final class Exchange {

    private final long startNanos = System.nanoTime();
    private final Instant start = Instant.now();
    private final String profile;
    private final String client;
    private boolean finished;

    String mode = "forward";
    String method;
    String scheme;
    String host;
    Integer port;
    String path;
    String rule;
    String credential;
    long bytesUp;
    long bytesDown;

    Exchange(String profile, String client) {
        this.profile = profile;
        this.client = client;
    }

    /** Records the outcome once: an audit line, the request counter, the duration, the bytes. */
    void finish(ProxyContext proxy, boolean allowed, Reason reason, int status) {
        if (finished) {
            return;
        }
        finished = true;
        long nanos = System.nanoTime() - startNanos;
        proxy.metrics.request(allowed, reason, mode, nanos / 1e9);
        proxy.metrics.bytesUp(bytesUp);
        proxy.metrics.bytesDown(bytesDown);
        proxy.audit.record(new AuditRecord(start.toString(), profile, client, mode, method, scheme, host, port, path,
                allowed ? "allow" : "deny", reason.code(), rule, credential, status, bytesUp, bytesDown, nanos / 1_000_000));
    }

    boolean finished() {
        return finished;
    }
}
