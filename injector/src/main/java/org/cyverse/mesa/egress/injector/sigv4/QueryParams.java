package org.cyverse.mesa.egress.injector.sigv4;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A query string as the client wrote it, parameter by parameter: each kept in its own spelling
 * (so what the proxy does not change goes out byte for byte) and decoded (what SigV4 signs).
 * Only {@code %XX} is decoded: a {@code +} is a plus, as the AWS SDKs encode a space {@code %20}.
 */
record QueryParams(List<Param> params) {

    /** One {@code name=value} (or {@code name} alone, whose value is empty). */
    record Param(String raw, String name, String value) {}

    QueryParams {
        params = List.copyOf(params);
    }

    /** @param query the part after {@code ?}, or {@code null} */
    static QueryParams parse(String query) throws SigV4Problem {
        List<Param> out = new ArrayList<>();
        if (query != null && !query.isEmpty()) {
            for (String raw : query.split("&", -1)) {
                if (raw.isEmpty()) {
                    continue;
                }
                int eq = raw.indexOf('=');
                String name = decode(eq < 0 ? raw : raw.substring(0, eq));
                String value = eq < 0 ? "" : decode(raw.substring(eq + 1));
                out.add(new Param(raw, name, value));
            }
        }
        return new QueryParams(out);
    }

    /** The only value of {@code name} (case-sensitive, as SigV4's are), {@code null} when absent. */
    String single(String name) throws SigV4Problem {
        String found = null;
        for (Param p : params) {
            if (p.name().equals(name)) {
                if (found != null) {
                    throw new SigV4Problem(SigV4Problem.Kind.MALFORMED, "the query names " + name + " twice");
                }
                found = p.value();
            }
        }
        return found;
    }

    boolean has(String name) {
        return params.stream().anyMatch(p -> p.name().equals(name));
    }

    /** These parameters without those named in {@code names}. */
    QueryParams without(List<String> names) {
        return new QueryParams(params.stream().filter(p -> !names.contains(p.name())).toList());
    }

    /** The query string: each parameter in its own spelling, joined by {@code &}. */
    String raw() {
        return String.join("&", params.stream().map(Param::raw).toList());
    }

    private static String decode(String text) throws SigV4Problem {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                int hi = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(text.charAt(i + 2), 16);
                if (lo < 0) {
                    throw new SigV4Problem(SigV4Problem.Kind.MALFORMED, "the query holds a broken %-escape");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
