package org.cyverse.mesa.egress.proxy.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.cyverse.mesa.egress.admission.Admission;
import org.cyverse.mesa.egress.admission.RunningProxy;
import org.cyverse.mesa.egress.allowlist.AddressGuard;
import org.cyverse.mesa.egress.config.MesaConfig;
import org.cyverse.mesa.egress.injector.CredentialSpec;
import org.cyverse.mesa.egress.injector.CredentialStore;
import org.cyverse.mesa.egress.injector.Injector;
import org.cyverse.mesa.egress.injector.SecretSources;
import org.cyverse.mesa.egress.injector.budget.CredentialBudgets;
import org.cyverse.mesa.egress.injector.Minter;
import org.cyverse.mesa.egress.injector.Minters;
import org.cyverse.mesa.egress.injector.CredentialSteps;
import org.cyverse.mesa.egress.injector.ServiceClients;
import org.cyverse.mesa.egress.injector.StepContext;
import org.cyverse.mesa.egress.proxy.ProxyState;
import org.cyverse.mesa.egress.proxy.admin.KillSwitch;
import org.cyverse.mesa.egress.proxy.approval.ApprovalInbox;
import org.cyverse.mesa.egress.proxy.observe.ProxyMetrics;
import org.cyverse.mesa.egress.tls.UpstreamTls;

/**
 * Makes the {@link ProxyState} snapshot for a config, at start and on every reload, from the
 * parts that live as long as the proxy: the secret sources, the kill switch, the credential
 * budgets and the approval inbox.
 */
final class ProxyStates {

    private final SecretSources secretSources;
    private final ScheduledExecutorService background;
    private final ProxyMetrics metrics;
    private final List<InetAddress> ownAddresses;
    private final KillSwitch kill;
    private final CredentialBudgets budgets;
    private final ApprovalInbox inbox;
    private final boolean canIntercept;

    ProxyStates(SecretSources secretSources, ScheduledExecutorService background, ProxyMetrics metrics, List<InetAddress> ownAddresses,
            KillSwitch kill, CredentialBudgets budgets, ApprovalInbox inbox, boolean canIntercept) {
        this.secretSources = secretSources;
        this.background = background;
        this.metrics = metrics;
        this.ownAddresses = ownAddresses;
        this.kill = kill;
        this.budgets = budgets;
        this.inbox = inbox;
        this.canIntercept = canIntercept;
    }

    /**
     * The client the credential kinds' checks ask their services with (GitHub's compare API),
     * made on first use: most configs never need one, and each JDK client keeps a thread.
     */
    private static Supplier<HttpClient> services(MesaConfig config) {
        AtomicReference<HttpClient> made = new AtomicReference<>();
        return () -> made.updateAndGet(c -> c != null ? c : client(config));
    }

    /** A service client with the config's upstream trust, or {@code null} when that cannot be read (nothing is then asked). */
    private static HttpClient client(MesaConfig config) {
        try {
            return ServiceClients.builder(UpstreamTls.jdkContext(config.tls().upstreamCa()), Minters.TIMEOUT)
                    .version(HttpClient.Version.HTTP_1_1).build();
        } catch (IOException e) {
            return null;
        }
    }

    /** A snapshot for {@code config}, keeping the credential store when the credentials' values did not change. */
    ProxyState create(MesaConfig config, ProxyState previous) throws IOException {
        UpstreamTls upstreamTls = UpstreamTls.create(config.tls().upstreamCa());
        CredentialStore store;
        if (previous != null && (kill.pulled() || previous.sameValuesAs(config))) {
            store = previous.credentials(); // after a kill: the dead store, so that nothing is fetched or minted again
        } else {
            AtomicReference<CredentialStore> made = new AtomicReference<>(); // a minter may exchange another credential's value
            Map<String, Minter> minters = config.credentials().stream().anyMatch(CredentialSpec::minted)
                    ? Minters.create(config.credentials(), secretSources.bySchemes(), UpstreamTls.jdkContext(config.tls().upstreamCa()),
                            made::get)
                    : Map.of();
            store = new CredentialStore(config.credentials(), secretSources.bySchemes(), minters, background, metrics.credentialListener(config.credentials()));
            made.set(store);
            store.start();
        }
        AddressGuard guard = config.addressGuard(ownAddresses);
        Injector injector = new Injector(config.credentials(), store);
        Admission admission = new Admission(config, guard, CredentialSteps.of(injector, config.credentials(),
                new StepContext(store, services(config))), canIntercept,
                new RunningProxy(kill::pulled, budgets, inbox.book()));
        budgets.configure(config.credentials());
        inbox.configure(config);
        return new ProxyState(config, guard, store, injector, upstreamTls, admission);
    }
}
