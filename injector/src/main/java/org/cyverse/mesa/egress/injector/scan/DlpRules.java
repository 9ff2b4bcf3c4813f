package org.cyverse.mesa.egress.injector.scan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The built-in {@code dlp} rules: the patterns, entropy floors and keywords of gitleaks' default
 * rule set (config/gitleaks.toml, rule ids kept) for the formats an agent is most likely to hold
 * and leak, plus one of the proxy's own for high-entropy tokens in {@code Authorization} headers.
 * The private-key rule is the block's header line only: a body is scanned as it streams, and the
 * header alone is what leaks a key.
 */
public final class DlpRules {

    /** The proxy's own rule: an {@code Authorization} credential of 20 or more characters with at least 4 bits of entropy per character, to a host no credential covers. */
    public static final String AUTHORIZATION_HIGH_ENTROPY = "authorization-high-entropy";

    private static final Map<String, DlpRule> BUILT_IN = new LinkedHashMap<>();

    static {
        add("aws-access-token", "\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b", 3, "a3t", "akia", "asia", "abia", "acca");
        add("github-pat", "ghp_[0-9a-zA-Z]{36}", 3, "ghp_");
        add("github-oauth", "gho_[0-9a-zA-Z]{36}", 3, "gho_");
        add("github-app-token", "(?:ghu|ghs)_[0-9a-zA-Z]{36}", 3, "ghu_", "ghs_");
        add("github-refresh-token", "ghr_[0-9a-zA-Z]{36}", 3, "ghr_");
        add("github-fine-grained-pat", "github_pat_\\w{82}", 3, "github_pat_");
        add("gitlab-pat", "glpat-[\\w-]{20}", 3, "glpat-");
        add("slack-bot-token", "xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*", 3, "xoxb");
        add("slack-user-token", "xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}", 2, "xoxp-", "xoxe-");
        add("slack-app-token", "(?i)xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+", 2, "xapp");
        add("slack-legacy-token", "xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+", 2, "xoxo", "xoxs");
        add("slack-webhook-url", "(?:https?://)?hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}", 0, "hooks.slack.com");
        add("private-key", "(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----", 0, "-----begin");
        add("jwt", "\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9/\\\\_-]{17,}\\.(?:[a-zA-Z0-9/\\\\_-]{10,}={0,2})?)(?:['|\"\\n\\r\\s\\x60;]|$)", 3, "ey");
        add("anthropic-api-key", "\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60'\"\\s;]|\\\\[nr]|$)", 0, "sk-ant-api03");
    }

    private DlpRules() {}

    private static void add(String id, String regex, double entropy, String... keywords) {
        BUILT_IN.put(id, new DlpRule(id, Pattern.compile(regex), entropy, List.of(keywords)));
    }

    /** Every built-in pattern rule, in a fixed order (the Authorization rule is not a pattern: see {@link #AUTHORIZATION_HIGH_ENTROPY}). */
    public static List<DlpRule> all() {
        return List.copyOf(BUILT_IN.values());
    }

    /** The built-in rule named {@code id}, or {@code null}. */
    public static DlpRule named(String id) {
        return BUILT_IN.get(id);
    }

    /** The names a config may list: every built-in pattern and the Authorization rule. */
    public static List<String> names() {
        List<String> names = new ArrayList<>(BUILT_IN.keySet());
        names.add(AUTHORIZATION_HIGH_ENTROPY);
        return names;
    }

    /**
     * Whether an {@code Authorization} value carries a high-entropy token: the credential after
     * the scheme (or the whole value), at least 20 characters, at least 4 bits per character.
     */
    public static boolean highEntropyAuthorization(String value) {
        String v = value.trim();
        int space = v.indexOf(' ');
        String credential = (space < 0 ? v : v.substring(space + 1)).trim();
        return credential.length() >= 20 && DlpRule.shannon(credential) >= 4.0;
    }
}
