package org.cyverse.mesa.egress.allowlist;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.cyverse.mesa.egress.bench.BenchmarkBase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link AddressGuard#check} on IP literals in the spellings a client may send (SPEC.md decision
 * steps 2 and 4): a public IPv4 address (permitted), the metadata address 169.254.169.254 dotted,
 * as one integer, in hex, in octal and in the short {@code a.b.c} form (refused), a public IPv6
 * address (permitted), and IPv6 forms that embed IPv4 (mapped, NAT64, 6to4; refused for the
 * metadata address, permitted for a public one).
 *
 * <p>{@code parseAndCheck} is the proxy's path for a literal: {@link Destination#parse}
 * canonicalizes the client's text, {@link InetAddress#getByAddress} turns the parsed bytes into an
 * address without DNS, the guard judges it. {@code checkOnly} is the guard alone on an address
 * built in setup. Setup checks every spelling gets the verdict expected of it.
 */
@State(Scope.Benchmark)
public class AddressGuardBenchmark extends BenchmarkBase {

    /** Name to spelling and whether the guard must permit it. */
    private static final Map<String, Case> CASES = Map.ofEntries(
            Map.entry("v4-public", new Case("140.82.112.3", true)),
            Map.entry("v4-metadata", new Case("169.254.169.254", false)),
            Map.entry("v4-metadata-int", new Case("2852039166", false)),
            Map.entry("v4-metadata-hex", new Case("0xa9.0xfe.0xa9.0xfe", false)),
            Map.entry("v4-metadata-octal", new Case("0251.0376.0251.0376", false)),
            Map.entry("v4-metadata-short", new Case("169.254.43518", false)),
            Map.entry("v6-public", new Case("[2606:4700::1111]", true)),
            Map.entry("v6-mapped-metadata", new Case("[::ffff:169.254.169.254]", false)),
            Map.entry("v6-nat64-metadata", new Case("[64:ff9b::a9fe:a9fe]", false)),
            Map.entry("v6-nat64-public", new Case("[64:ff9b::8c52:7003]", true)),
            Map.entry("v6-6to4-metadata", new Case("[2002:a9fe:a9fe::1]", false)));

    private record Case(String spelling, boolean permitted) {}

    @Param({"v4-public", "v4-metadata", "v4-metadata-int", "v4-metadata-hex", "v4-metadata-octal", "v4-metadata-short",
        "v6-public", "v6-mapped-metadata", "v6-nat64-metadata", "v6-nat64-public", "v6-6to4-metadata"})
    public String spelling;

    private AddressGuard guard;
    private String raw;
    private InetAddress address;

    @Setup
    public void setUp() throws InvalidDestinationException, UnknownHostException {
        Case c = CASES.get(spelling);
        if (c == null) {
            throw new IllegalArgumentException("unknown spelling " + spelling + "; known: " + CASES.keySet());
        }
        raw = c.spelling();
        // As the proxy builds it: no allow_private, its own interface addresses (loopback and a pod address).
        guard = new AddressGuard(List.of(), List.of(
                InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
                InetAddress.getByAddress(new byte[] {10, 42, 0, 17}),
                InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})));
        address = InetAddress.getByAddress(Destination.parse(raw, 443).addressBytes());
        AddressGuard.Verdict viaParse = parseAndCheck();
        AddressGuard.Verdict direct = checkOnly();
        if (viaParse.permitted() != c.permitted() || !viaParse.equals(direct)) {
            throw new IllegalStateException(spelling + " (" + raw + "): expected permitted=" + c.permitted()
                    + ", got " + viaParse + " / " + direct);
        }
    }

    @Benchmark
    public AddressGuard.Verdict parseAndCheck() throws InvalidDestinationException, UnknownHostException {
        Destination destination = Destination.parse(raw, 443);
        return guard.check(InetAddress.getByAddress(destination.addressBytes()));
    }

    @Benchmark
    public AddressGuard.Verdict checkOnly() {
        return guard.check(address);
    }
}
