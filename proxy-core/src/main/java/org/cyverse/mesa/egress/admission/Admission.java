package org.cyverse.mesa.egress.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.cyverse.mesa.egress.admission.Verdict.Mode;
import org.cyverse.mesa.egress.admission.Verdict.Outgoing;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.allowlist.Decision;
import org.cyverse.mesa.egress.allowlist.Destination;
import org.cyverse.mesa.egress.allowlist.InvalidDestinationException;
import org.cyverse.mesa.egress.allowlist.Target;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialStep;
import org.cyverse.mesa.egress.injector.Injection;
import org.cyverse.mesa.egress.injector.OutgoingRequest;
import org.cyverse.mesa.egress.injector.budget.BudgetOutcome;
import org.cyverse.mesa.egress.injector.budget.BudgetRefusal;
import org.cyverse.mesa.egress.injector.budget.BudgetTicket;
import org.cyverse.mesa.egress.injector.budget.CredentialBudgets;
import org.cyverse.mesa.egress.injector.scan.ScanPlan;

/**
 * The decision of SPEC.md ("How a request is decided"), steps 2-5, as one function without a
 * channel: {@link #decide} takes the facts of one request and returns its {@link Verdict}. The
 * proxy's handlers, {@code check} and the tests all call it. What it cannot know is decided
 * where it is learnt, and answered through {@link Refusals} too: the framing of step 1 by the
 * request decoder, the resolved addresses of step 4 by the dialer, the TLS server name of a
 * tunnel by the SNI check.
 *
 * <p>Before all of it: once the kill switch is pulled, every request whose target could be read is
 * refused {@code egress_killed}, so nothing else (credentials, policy) is consulted.
 *
 * <ol start="2">
 *   <li>the target is parsed and canonicalized ({@link RequestTarget}, {@link Destination}); inside
 *       an intercepted tunnel, the target and Host must name the CONNECT target (421);
 *   <li>deny list, allow list with ports, then methods and paths ({@link org.cyverse.mesa.egress.allowlist.Policy});
 *       a CONNECT is decided without method and path, and intercepted when the config says so;
 *   <li>an IP literal goes through the address guard here; names are resolved and vetted by the
 *       dialer, once, after the verdict (so {@code check}, which resolves nothing, stops here);
 *   <li>TRACE/TRACK to an inspected host are refused (405: they would echo the credential), and
 *       CONNECT inside an intercepted one (405: a nested tunnel); then
 *       every {@link CredentialStep} in turn refuses the request or rewrites it, ({@link CredentialPass}) and says what its
 *       body must be found free of ({@link Verdict.Outgoing#bodyScans}); the body is scanned as it
 *       arrives, by the proxy, before any of it leaves;
 *   <li>last, a request that carries a credential with {@code limits:} takes its place in that
 *       credential's budget, or is refused 429 {@code credential_budget_exceeded} (never sent
 *       without the credential instead).
 * </ol>
 *
 * Every refusal is carried out through the draft ({@link VerdictDraft}), which asks the
 * {@link EnforcementPolicy} whether it is enforced or only reported; those of the policy (step 3) may
 * be reported, and the request then goes on through the later steps as if allowed.
 *
 * <p>Thread-safe: one instance per config snapshot; the kill switch and the budgets it consults are the
 * proxy's, and outlive it.
 */
public final class Admission {

    private final MesaConfig config;
    private final AddressGuard guard;
    private final List<CredentialStep> steps;
    private final boolean canIntercept;
    private final LeakRedaction redaction;
    private final DlpCheck dlp;
    private final BooleanSupplier killed;
    private final CredentialBudgets budgets;
    private final ApprovalStep approvals;
    private final EnforcementPolicy enforcement;

    /**
     * @param guard the address guard for IP literals
     * @param steps the credential kinds, applied in this order
     * @param canIntercept whether the proxy has a CA to terminate TLS with
     */
    public Admission(MesaConfig config, AddressGuard guard, List<CredentialStep> steps, boolean canIntercept) {
        this(config, guard, steps, canIntercept, RunningProxy.NONE);
    }

    /** @param live the running proxy's kill switch, budgets and approval inbox */
    public Admission(MesaConfig config, AddressGuard guard, List<CredentialStep> steps, boolean canIntercept, RunningProxy live) {
        this(config, guard, steps, canIntercept, live, EnforcementPolicy.ENFORCE_ALL);
    }

    /** @param enforcement which refusals are only reported ({@code enforcement:}, read by a later issue) */
    Admission(MesaConfig config, AddressGuard guard, List<CredentialStep> steps, boolean canIntercept, RunningProxy live,
            EnforcementPolicy enforcement) {
        this.enforcement = enforcement;
        this.killed = live.killed();
        this.budgets = live.budgets();
        this.config = config;
        this.guard = guard;
        this.steps = List.copyOf(steps);
        this.canIntercept = canIntercept;
        this.redaction = new LeakRedaction(this.steps);
        this.dlp = new DlpCheck(config);
        this.approvals = new ApprovalStep(live.approvals(), config, guard, redaction, dlp);
    }

    /** The config this admission decides with. */
    public MesaConfig config() {
        return config;
    }

    /** Decides one request. */
    public Verdict decide(RequestFacts facts) {
        VerdictDraft draft = new VerdictDraft(switch (facts.arrival()) {
            case PROXY_REQUEST -> Mode.FORWARD;
            case CONNECT -> Mode.TUNNEL;
            case INSIDE_TUNNEL -> Mode.INTERCEPT;
        }, facts.method(), enforcement);
        Verdict verdict = switch (facts.arrival()) {
            case PROXY_REQUEST -> proxyRequest(draft, facts);
            case CONNECT -> connect(draft, facts);
            case INSIDE_TUNNEL -> insideTunnel(draft, facts);
        };
        // A reported verdict goes on as an allowed one does: step 5 (for a request) refused any real secret it carried.
        return verdict.allowed() || verdict.reason() == Reason.SECRET_LEAK ? verdict : redaction.of(draft, facts, verdict);
    }

    private Verdict proxyRequest(VerdictDraft draft, RequestFacts facts) {
        String uri = facts.target();
        if (uri.startsWith("/") || uri.equals("*")) {
            return draft.refuse(Refusals.badRequest(Refusals.Problem.NO_DESTINATION, TargetChecks.abbreviate(uri)));
        }
        RequestTarget target;
        try {
            target = RequestTarget.parseAbsolute(uri);
        } catch (RequestTarget.BadTargetException e) {
            return draft.unreadable(Refusals.badRequest(Refusals.Problem.BAD_TARGET, e.getMessage()));
        }
        draft.scheme = target.scheme();
        draft.host = target.host();
        draft.port = target.port();
        draft.path = target.path();
        draft.pathAndQuery = target.pathAndQuery();
        if (target.scheme().equals("https")) {
            return draft.refuse(Refusals.badRequest(Refusals.Problem.HTTPS_AS_PLAIN, null));
        }
        Destination destination;
        try {
            destination = Destination.parse(target.host(), target.port());
        } catch (InvalidDestinationException e) {
            return draft.unreadable(Refusals.badRequest(Refusals.Problem.BAD_TARGET, e.getMessage()));
        }
        return request(draft, facts, destination, target.pathAndQuery(), false);
    }

    private Verdict connect(VerdictDraft draft, RequestFacts facts) {
        Destination destination;
        try {
            RequestTarget target = RequestTarget.parseAuthority(facts.target());
            draft.host = target.host();
            draft.port = target.port();
            destination = Destination.parse(target.host(), target.port());
        } catch (RequestTarget.BadTargetException | InvalidDestinationException e) {
            return draft.unreadable(Refusals.badRequest(Refusals.Problem.BAD_CONNECT_TARGET, e.getMessage()));
        }
        draft.at(destination);
        if (killed.getAsBoolean()) {
            return draft.refuse(Refusals.of(Reason.EGRESS_KILLED, destination.host(), profile(), null));
        }
        Decision decision = approvals.withGrants(config.policy().decide(Target.tunnel(destination)), Target.tunnel(destination));
        draft.policy = decision;
        boolean needsInspection = decision.outcome() == Decision.Outcome.NEEDS_INSPECTION;
        boolean intercept = canIntercept && config.intercepts(decision, destination);
        Verdict refused = null;
        if (needsInspection && !intercept) {
            refused = draft.refuseUnlessReported(Refusals.needsInterception(decision, destination.host()));
        } else if (!decision.allowed() && !needsInspection) {
            refused = draft.refuseUnlessReported(policyRefusal(decision, destination, draft, facts));
        }
        if (refused != null) {
            return refused;
        }
        if (!TargetChecks.literalPermitted(guard, destination)) {
            return draft.refuse(Refusals.of(Reason.ADDRESS_NOT_ALLOWED, destination.host(), profile(), null));
        }
        if (intercept) {
            // Only a CONNECT that is let through becomes an intercepted tunnel; one that then
            // fails to dial is audited as the intercepted tunnel it was admitted as.
            draft.mode = Mode.INTERCEPT;
        }
        return draft.allow(null);
    }

    /**
     * A request inside an intercepted CONNECT: origin-form (or an absolute https URI naming the
     * CONNECT target), and a Host that names the CONNECT target too (domain fronting refused).
     */
    private Verdict insideTunnel(VerdictDraft draft, RequestFacts facts) {
        Destination tunnel = facts.tunnel();
        draft.scheme = "https";
        draft.at(tunnel);
        if (facts.method().equalsIgnoreCase("CONNECT")) { // a tunnel in the tunnel would escape every check of this one
            return draft.refuse(Refusals.of(Reason.METHOD_REFUSED, tunnel.host(), profile(), "CONNECT"));
        }
        String uri = facts.target();
        String pathAndQuery;
        if (uri.startsWith("/")) {
            pathAndQuery = uri;
        } else {
            try {
                RequestTarget target = RequestTarget.parseAbsolute(uri);
                if (!target.scheme().equals("https") || !TargetChecks.names(tunnel, target.host(), target.port())) {
                    return draft.refuse(Refusals.of(Reason.HOST_MISMATCH, tunnel.host(), profile(), "request target " + TargetChecks.abbreviate(uri)));
                }
                pathAndQuery = target.pathAndQuery();
            } catch (RequestTarget.BadTargetException e) {
                return draft.unreadable(Refusals.badRequest(Refusals.Problem.BAD_ORIGIN_TARGET, e.getMessage()));
            }
        }
        draft.pathAndQuery = pathAndQuery;
        draft.path = RequestTarget.pathOf(pathAndQuery);
        Refusal hostRefusal = TargetChecks.hostHeader(tunnel, facts.header("Host"), profile());
        if (hostRefusal != null) {
            return hostRefusal.reason() == Reason.BAD_REQUEST ? draft.unreadable(hostRefusal) : draft.refuse(hostRefusal);
        }
        return request(draft, facts, tunnel, pathAndQuery, true);
    }

    /** Steps 3-5 for a request whose destination is known; its callers have set the draft's path. */
    private Verdict request(VerdictDraft draft, RequestFacts facts, Destination destination, String pathAndQuery, boolean tls) {
        draft.at(destination);
        if (killed.getAsBoolean()) {
            return draft.refuse(Refusals.of(Reason.EGRESS_KILLED, destination.host(), profile(), null));
        }
        String method = facts.method();
        Target target = new Target(destination, method, draft.path);
        Decision decision = approvals.withGrants(config.policy().decide(target), target);
        draft.policy = decision;
        Verdict refused = decision.allowed() ? null : draft.refuseUnlessReported(policyRefusal(decision, destination, draft, facts));
        if (refused != null) {
            return refused;
        }
        if (!tls && !TargetChecks.literalPermitted(guard, destination)) {
            return draft.refuse(Refusals.of(Reason.ADDRESS_NOT_ALLOWED, destination.host(), profile(), null));
        }
        // Any case: a server that reads methods case-insensitively would echo "trace" too.
        boolean trace = method.equalsIgnoreCase("TRACE") || method.equalsIgnoreCase("TRACK");
        if (tls && trace) {
            // TRACE echoes the request, injected credentials included, back to the client.
            return draft.refuse(Refusals.of(Reason.METHOD_REFUSED, destination.host(), profile(), method));
        }
        OutgoingRequest sent = new OutgoingRequest(tls, destination, method, pathAndQuery, facts.headers());
        CredentialPass pass = CredentialPass.run(steps, sent, draft, redaction, profile());
        if (pass.refusal() != null) {
            return draft.refuse(pass.refusal());
        }
        List<Injection.Applied> applied = draft.applied;
        OutgoingRequest outgoing = pass.outgoing();
        if (trace && !applied.isEmpty()) {
            return draft.refuse(Refusals.of(Reason.METHOD_REFUSED, destination.host(), profile(), method));
        }
        Refusal dlpRefusal = dlp.judge(draft, sent);
        if (dlpRefusal != null) {
            return draft.refuse(dlpRefusal);
        }
        List<ScanPlan> scans = List.of();
        for (CredentialStep step : steps) {
            ScanPlan plan = step.bodyScan(sent); // the body as sent: an in-scope sentinel the proxy substitutes is no finding
            if (!plan.isEmpty()) {
                scans = scans.isEmpty() ? new ArrayList<>() : scans;
                scans.add(plan);
            }
        }
        if (budgets != null && !applied.isEmpty()) {
            // Last: a request refused for any other reason takes nothing from a budget.
            BudgetOutcome outcome = budgets.admit(applied.stream().map(Injection.Applied::credential).toList());
            if (outcome instanceof BudgetRefusal over) {
                draft.credential = over.credential();
                return draft.refuse(Refusals.budget(over, destination.host(), profile()));
            }
            draft.budget = (BudgetTicket) outcome;
        }
        return draft.allow(new Outgoing(outgoing.pathAndQuery(), outgoing.headers(), pass.bodySubstitution(), scans, dlp.body(),
                new TrailerCheck(steps, sent, config.credentials(), profile(), dlp::trailerRule, dlp.blocks()), pass.bodyChecks()));
    }

    /** The policy's refusal, or the approval inbox's when the host may be approved. */
    private Refusal policyRefusal(Decision decision, Destination destination, VerdictDraft draft, RequestFacts facts) {
        Refusal asked = approvals.refusal(decision, destination, draft, facts);
        return asked != null ? asked : Refusals.policy(decision, destination.host(), destination.port(), profile());
    }

    private String profile() {
        return config.profile().name();
    }
}
