package org.cyverse.mesa.egress.proxy.body;

import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.cyverse.mesa.egress.admission.TrailerCheck;
import org.cyverse.mesa.egress.admission.Verdict;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.body.ContentCoding;
import org.cyverse.mesa.egress.body.RequestBodyScan;
import org.cyverse.mesa.egress.injector.BodyCheck;
import org.cyverse.mesa.egress.injector.Secret;
import org.cyverse.mesa.egress.injector.StreamReplacer;
import org.cyverse.mesa.egress.injector.scan.BodyScanner;
import org.cyverse.mesa.egress.injector.scan.DlpPlan;
import org.cyverse.mesa.egress.injector.scan.DlpRule;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;
import org.cyverse.mesa.egress.proxy.ProxyState;

/**
 * A request body between the client and the upstream: each chunk is scanned before it may leave;
 * the first {@code limits.scan_hold_bytes} are held back, together with the request head, until
 * the scan has seen the whole body or that many bytes, so that a body within the bound that
 * carries a secret never reaches the upstream at all; past the bound the body streams with the
 * scan still running. Sentinels of credentials that opted in to body substitution are replaced
 * after the scan (the scan reads what the client sent). The credential kinds' {@link BodyCheck}s
 * (a push's branch rule, re-signed aws-chunked signatures) run on every chunk after the scan, in
 * the order the admission listed them; while one holds, the head and the body wait. Confined to the
 * client's event loop; {@link #close} releases what is held.
 */
public final class RequestBodyGate implements AutoCloseable {

    private final RequestBodyScan scan;
    private final StreamReplacer substitution;
    /** The credential kinds' checks of this body, or {@code null} when there are none. */
    private BodyCheckChain checks;
    /** What judges a chunked body's trailer fields, or {@code null} when the body is not chunked. */
    private final TrailerCheck trailers;
    /** The trailer fields to send, once judged; {@code null} before (or when there are none). */
    private List<Map.Entry<String, String>> checkedTrailers;
    private final int holdBytes;
    /** Size of the buffers small held chunks are copied into. */
    static final int PAGE = HeldPages.PAGE;

    /** The held body bytes, in pages. */
    private final HeldPages held = new HeldPages();
    private final boolean dlpBlocks;
    private boolean holding;
    private boolean dlpReported;
    /** Where a {@code dlp} rule found in audit mode is recorded (the exchange's record and the metrics). */
    private final BiConsumer<String, String> dlpAudit;

    /** Where held bytes are counted across requests, and its bound; {@code null} for none (tests). */
    private HoldBudget budget;
    private long budgetMax;
    private long charged;

    private RequestBodyGate(RequestBodyScan scan, StreamReplacer substitution, TrailerCheck trailers, int holdBytes, boolean dlpBlocks,
            BiConsumer<String, String> dlpAudit) {
        this.scan = scan;
        this.trailers = trailers;
        this.dlpAudit = dlpAudit;
        this.dlpBlocks = dlpBlocks;
        this.substitution = substitution;
        this.holdBytes = holdBytes;
        this.holding = scan != null && holdBytes > 0;
    }

    /**
     * The gate for {@code request}'s body, or {@code null} when it has none or there is nothing to
     * scan or substitute in it.
     *
     * @param dlpAudit records a {@code dlp} rule found in audit mode, with its place (the request goes on)
     * @throws RequestBodyScan.UnscannableException the body's coding cannot be decoded and must be
     */
    public static RequestBodyGate forRequest(HttpRequest request, Verdict.Outgoing out, ProxyState state, Destination destination,
            BiConsumer<String, String> dlpAudit, HoldBudget budget) throws RequestBodyScan.UnscannableException {
        if (!hasBody(request)) {
            return null;
        }
        RequestBodyGate gate = of(out.bodyScans(), out.bodyDlp(), out.bodySubstitution(),
                HttpUtil.isTransferEncodingChunked(request) ? out.trailers() : null, ContentCoding.of(request.headers()),
                state.injector().hasCredentialFor(destination), state.config().limits().scanHoldBytes(), dlpAudit, out.bodyChecks());
        if (gate != null) {
            gate.budget = budget;
            gate.budgetMax = state.config().limits().scanHoldTotalBytes();
        }
        return gate;
    }

    /** Whether {@code request} announces a body (chunked, or a Content-Length above zero). */
    public static boolean hasBody(HttpRequest request) {
        return HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
    }

    /**
     * The gate for a request body, or {@code null} when there is nothing to scan, substitute or re-sign.
     *
     * @param trailers what judges the trailer fields of a chunked body; {@code contentEncoding} its
     *     {@code Content-Encoding}: each may be {@code null}
     * @param credentialHost whether a credential covers the destination: a body there must be decodable
     * @param checks the credential kinds' checks of the body, in order (started here)
     * @throws RequestBodyScan.UnscannableException the body's coding cannot be decoded and must be
     */
    static RequestBodyGate of(List<ScanPlan> plans, DlpPlan dlp, Map<String, Secret> substitution, TrailerCheck trailers,
            String contentEncoding, boolean credentialHost, int holdBytes, BiConsumer<String, String> dlpAudit,
            List<BodyCheck.Plan> checks) throws RequestBodyScan.UnscannableException {
        RequestBodyScan scan = plans.isEmpty() && dlp == null ? null : RequestBodyScan.of(plans, dlp, contentEncoding, credentialHost);
        StreamReplacer replacer = substitution.isEmpty() ? null : BodyRewriting.sentinelsToSecrets(substitution);
        RequestBodyGate gate = scan == null && replacer == null && trailers == null && checks.isEmpty() ? null
                : new RequestBodyGate(scan, replacer, trailers, holdBytes, dlp != null && dlp.block(), dlpAudit);
        if (gate != null && !checks.isEmpty()) {
            gate.checks = new BodyCheckChain(checks);
            gate.holding |= gate.checks.holdsHead(); // held until the check decides, even with nothing to scan
        }
        return gate;
    }

    /** {@code chunk} as the kinds' checks rewrite it (consumed when rewritten), else itself. */
    HttpContent rewritten(HttpContent chunk) throws BodyCheck.Refused {
        return checks == null ? chunk : checks.rewritten(chunk);
    }

    /** Whether a check holds the head until it decides (the upstream's answer is then watched for early, {@link EarlyAnswer}). */
    boolean holdsForChecks() {
        return checks != null && checks.holdsHead();
    }

    /** Whether the body may still be refused at its end, after the head went (a push's pack read for fast-forwards). */
    boolean judgedAtEnd() {
        return checks != null && checks.judgedAtEnd();
    }

    /** Whether a check waits for an answer from elsewhere (a push's fast-forward asked of GitHub). */
    boolean waiting() {
        return checks != null && checks.waiting();
    }

    /** Completes once no check waits any more. */
    CompletableFuture<Void> awaiting() {
        return checks == null ? CompletableFuture.completedFuture(null) : checks.awaiting();
    }

    /** The waiting checks once answered: what stops the body, or {@code null}. */
    BodyFinding resume() {
        BodyCheck.Refusal refused = checks == null ? null : checks.resume();
        return refused == null ? null : new BodyFinding.Checked(refused);
    }

    /** Whether the chunks now coming are dropped: a refused body, answered once it has ended. */
    boolean dropping() {
        return checks != null && checks.dropping();
    }

    /** Whether the body's length changes on the way (it is then sent chunked). */
    boolean rewrites() {
        return substitution != null || checks != null && checks.changesLength();
    }

    /** Whether the request head and the body wait for the scan. */
    boolean holding() {
        return holding;
    }

    /** Whether the scan has seen enough to let the head and what was held go: all of the body, or the bound. */
    boolean holdComplete() {
        return (checks == null || checks.decided()) && (held.sawLast() || held.bytes() >= holdBytes || scan == null);
    }

    /** Scans {@code chunk} (not consumed); {@code null} when it is clean. */
    BodyFinding inspect(HttpContent chunk) {
        if (trailers != null && chunk instanceof LastHttpContent last && !last.trailingHeaders().isEmpty()) {
            TrailerCheck.Outcome judged = trailers.check(last.trailingHeaders().entries());
            if (judged.refusal() != null) {
                return new BodyFinding.Trailers(judged);
            }
            if (judged.dlpRule() != null) {
                dlpAudit.accept(judged.dlpRule(), "trailer"); // audit mode: recorded, the request goes on
            }
            checkedTrailers = judged.fields();
        }
        if (scan == null) {
            return checkFinding(chunk);
        }
        try {
            boolean last = chunk instanceof LastHttpContent;
            BodyScanner.Hit hit = scan.scan(chunk.content());
            if (hit == null && last) {
                hit = scan.finish();
            }
            if (hit != null) {
                return new BodyFinding.Leak(hit);
            }
            // dlp judges in runs; what is about to leave (all that was held, or a streamed chunk) is judged now.
            boolean leaving = !holding || last || held.bytes() + chunk.content().readableBytes() >= holdBytes;
            DlpRule rule = leaving ? scan.flushDlp() : scan.dlpFound();
            if (rule != null && !dlpReported) {
                dlpReported = true;
                if (dlpBlocks) {
                    return new BodyFinding.Dlp(rule.id());
                }
                dlpAudit.accept(rule.id(), "body");
            }
            return checkFinding(chunk);
        } catch (RequestBodyScan.UnscannableException e) {
            return new BodyFinding.Unscannable(e.getMessage());
        }
    }

    /** The kinds' checks on {@code chunk} (not consumed): the first refusal, else {@code null}. */
    private BodyFinding checkFinding(HttpContent chunk) {
        BodyCheck.Refusal refused = checks == null ? null : checks.inspect(chunk);
        return refused == null ? null : new BodyFinding.Checked(refused);
    }

    /**
     * Counts {@code chunk} against the bytes held across requests before it is held; whether
     * there was room (when not, the request is refused {@code overloaded}).
     */
    boolean reserve(HttpContent chunk) {
        long n = chunk.content().readableBytes();
        if (budget == null || n == 0) {
            return true;
        }
        if (!budget.take(n, budgetMax)) {
            return false;
        }
        charged += n;
        return true;
    }

    /** Keeps a clean chunk until {@link #release} (consumed). */
    void hold(HttpContent chunk) {
        held.add(chunk);
    }

    /** Stops holding: what was held, as chunks ready to send in order (the gate no longer owns them). */
    List<HttpContent> release() {
        holding = false;
        giveBack();
        return held.release(this::outgoing);
    }

    /**
     * A clean chunk as it goes upstream (consumed): sentinels substituted where a credential opted
     * in; the body's end carries the trailer fields as {@link #inspect} judged them (the end of a
     * held body is rebuilt from pages), and none that were not judged.
     */
    HttpContent outgoing(HttpContent chunk) {
        if (chunk instanceof LastHttpContent last && (checkedTrailers != null || !last.trailingHeaders().isEmpty())) {
            DefaultLastHttpContent end = new DefaultLastHttpContent(last.content().retain());
            if (checkedTrailers != null) {
                checkedTrailers.forEach(f -> end.trailingHeaders().add(f.getKey(), f.getValue()));
            }
            last.release();
            chunk = end;
        }
        return substitution == null ? chunk : BodyRewriting.rewrite(chunk, substitution);
    }

    private void giveBack() {
        if (budget != null && charged > 0) {
            budget.give(charged);
            charged = 0;
        }
    }

    @Override
    public void close() {
        giveBack();
        if (checks != null) {
            checks.close();
        }
        held.close();
        if (scan != null) {
            scan.close();
        }
    }
}
