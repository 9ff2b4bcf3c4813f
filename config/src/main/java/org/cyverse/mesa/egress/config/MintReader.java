package org.cyverse.mesa.egress.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.cyverse.mesa.egress.config.MapReader.Text;
import org.cyverse.mesa.egress.injector.SecretRef;
import org.cyverse.mesa.egress.injector.mint.LiteLlmSpec;

/** Reads a credential's {@code mint} block. */
final class MintReader implements KindReader {

    static final List<String> MINT_KEYS = List.of("litellm");
    static final List<String> LITELLM_KEYS = List.of("url", "master_key", "duration", "max_budget", "models", "metadata",
            "key_alias", "delete_on_stop");

    /** LiteLLM's {@code duration}: a number and s, m, h, d, w or mo (litellm_core_utils/duration_parser.py). */
    private static final Pattern DURATION = Pattern.compile("([1-9][0-9]{0,6})(s|m|h|d|w|mo)");
    private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    @Override
    public String key() {
        return "mint";
    }

    @Override
    public Read read(MapReader credential, Context context) {
        if (credential.present("secret")) {
            credential.problem("secret", "a minted credential has no secret: the proxy makes its value (remove secret, or remove mint)");
        }
        LiteLlmSpec spec = read(credential, context.broker(), context.name(), context.environment());
        return spec == null ? null : new Read(spec);
    }

    /** @return the mint spec, or {@code null} when a problem was reported */
    static LiteLlmSpec read(MapReader credential, boolean broker, String name, Map<String, String> environment) {
        int unknown = credential.problems().size();
        MapReader mint = credential.map("mint", MINT_KEYS);
        if (mint == null || credential.problems().size() != unknown) {
            return null; // an unknown kind was named: that problem says it
        }
        if (!mint.present("litellm")) {
            mint.problem("litellm", "is required: the kind of minted credential (the only kind today is litellm)");
            return null;
        }
        MapReader l = mint.map("litellm", LITELLM_KEYS);
        if (l == null) {
            return null;
        }
        int before = l.problems().size();
        URI url = HttpsUrls.read(l, "url", "the LiteLLM proxy's base URL", "https://llm-api.cyverse.ai", "the master key goes with every call");
        String masterText = l.requiredString("master_key");
        SecretRef master = masterText == null ? null : CredentialReader.secretRef(l, "master_key", masterText, broker);
        String duration = l.string("duration");
        if (duration != null && !DURATION.matcher(duration).matches()) {
            l.problem("duration", "must be a whole number and s, m, h, d, w or mo, as LiteLLM reads it (e.g. 8h), got \"" + duration + "\"");
        }
        Double budget = budget(l);
        List<String> models = new ArrayList<>();
        List<Text> modelTexts = l.strings("models");
        if (modelTexts != null) {
            for (Text t : modelTexts) {
                if (t.value().isBlank() || CredentialReader.hasControl(t.value())) {
                    l.problems().add(t.line(), l.key("models"), "a model name must be non-empty, without control characters");
                } else {
                    models.add(t.value());
                }
            }
        }
        Map<String, String> metadata = metadata(l, environment);
        String alias = l.string("key_alias");
        if (alias == null) {
            alias = "mesa-egress-" + (name == null ? "credential" : name);
        } else if (!ALIAS.matcher(alias).matches()) {
            l.problem("key_alias", "may hold only A-Z, a-z, 0-9, '.', '_' and '-' (at most 64), got \"" + alias + "\"");
        }
        boolean delete = l.bool("delete_on_stop", false);
        if (l.problems().size() != before || url == null || master == null) {
            return null;
        }
        return new LiteLlmSpec(url, master, duration, budget, models, metadata, alias, delete);
    }

    private static Double budget(MapReader l) {
        YamlNode raw = l.raw("max_budget");
        if (raw == null) {
            return null;
        }
        if (raw instanceof YamlNode.Scalar s && (s.kind() == YamlNode.Kind.INTEGER || s.kind() == YamlNode.Kind.DECIMAL)) {
            double value = ((Number) s.value()).doubleValue();
            if (value > 0 && Double.isFinite(value)) {
                return value;
            }
        }
        l.problem("max_budget", "must be a positive number of USD (e.g. 20.0), got " + raw.describe());
        return null;
    }

    /** String values; {@code ${VAR}} expands from the proxy's environment, and an unset variable is a problem. */
    private static Map<String, String> metadata(MapReader l, Map<String, String> environment) {
        Map<String, String> metadata = new LinkedHashMap<>();
        YamlNode raw = l.raw("metadata");
        if (raw == null) {
            return metadata;
        }
        if (!(raw instanceof YamlNode.MapNode map)) {
            l.problem("metadata", "expected a map of names to strings, e.g. {analysis: \"${MESA_ANALYSIS_ID}\"}, got " + raw.describe());
            return metadata;
        }
        for (YamlNode.Entry entry : map.entries()) {
            String key = l.key("metadata") + "." + entry.key();
            if (!(entry.value() instanceof YamlNode.Scalar scalar) || scalar.kind() == YamlNode.Kind.NULL) {
                l.problems().add(entry.keyLine(), key, "expected a string, got " + entry.value().describe());
                continue;
            }
            String expanded = EnvironmentText.expand(l, scalar.line(), key, scalar.text(), environment);
            if (expanded != null) {
                metadata.put(entry.key(), expanded);
            }
        }
        return metadata;
    }
}
