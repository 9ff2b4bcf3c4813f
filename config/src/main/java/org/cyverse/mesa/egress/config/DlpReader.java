package org.cyverse.mesa.egress.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;
import org.cyverse.mesa.egress.injector.scan.DlpRule;
import org.cyverse.mesa.egress.injector.scan.DlpRules;

/**
 * Reads {@code dlp:}: {@code mode} (off, audit, block; default off) and {@code patterns}, a list
 * whose items are a built-in rule's name or a map {@code {name: ..., regex: ...}} of a site's own
 * (Java regex syntax); without {@code patterns}, every built-in rule.
 */
final class DlpReader {

    static final List<String> KEYS = List.of("mode", "patterns");
    static final List<String> PATTERN_KEYS = List.of("name", "regex");

    private DlpReader() {}

    static MesaConfig.Dlp dlp(MapReader root) {
        MapReader dlp = root.section("dlp", KEYS);
        String modeText = dlp.string("mode");
        MesaConfig.Dlp.Mode mode = MesaConfig.Dlp.Mode.OFF;
        if (modeText != null) {
            switch (modeText) {
                case "off" -> mode = MesaConfig.Dlp.Mode.OFF;
                case "audit" -> mode = MesaConfig.Dlp.Mode.AUDIT;
                case "block" -> mode = MesaConfig.Dlp.Mode.BLOCK;
                default -> dlp.problem("mode", "must be off, audit or block, got \"" + modeText + "\"");
            }
        }
        List<YamlNode> items = dlp.list("patterns");
        if (items == null) {
            return new MesaConfig.Dlp(mode, DlpRules.all(), true);
        }
        List<DlpRule> rules = new ArrayList<>();
        boolean authorization = false;
        for (int i = 0; i < items.size(); i++) {
            YamlNode item = items.get(i);
            String key = dlp.key("patterns") + "[" + i + "]";
            if (item instanceof YamlNode.Scalar scalar && scalar.kind() != YamlNode.Kind.NULL) {
                String name = scalar.text();
                if (name.equals(DlpRules.AUTHORIZATION_HIGH_ENTROPY)) {
                    authorization = true;
                } else if (DlpRules.named(name) != null) {
                    rules.add(DlpRules.named(name));
                } else {
                    root.problems().add(item.line(), key, "no built-in rule " + name + " (known: " + String.join(", ", DlpRules.names())
                            + "); give a site's own as {name: ..., regex: ...}");
                }
                continue;
            }
            MapReader custom = MapReader.item(item, key, root.problems(), PATTERN_KEYS, "{name: acme-token, regex: \"acme_[0-9a-f]{32}\"}");
            if (custom == null) {
                continue;
            }
            String name = custom.requiredString("name");
            String regex = custom.requiredString("regex");
            if (name == null || regex == null) {
                continue;
            }
            if (!name.matches("[a-z0-9][a-z0-9-]{0,62}")) {
                custom.problem("name", "must be lowercase letters, digits and dashes (it becomes a metric label), got \"" + name + "\"");
                continue;
            }
            try {
                rules.add(DlpRule.custom(name, regex));
            } catch (PatternSyntaxException e) {
                custom.problem("regex", "is not a valid regular expression: " + e.getDescription());
            }
        }
        return new MesaConfig.Dlp(mode, rules, authorization);
    }
}
