package org.cyverse.mesa.egress.injector.scan;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One pattern of a well-known secret format for {@code dlp}: what the proxy does not hold but
 * recognizes (an AWS key, a GitHub token), as gitleaks' default rules describe them.
 *
 * @param id the rule's name, in refusals, audit records and metric labels
 * @param pattern matched against text (a body's bytes as ISO-8859-1, a header value)
 * @param entropy the least Shannon entropy, in bits per character, of the matched value (its first
 *     group, else the whole match) for it to count: {@code ghp_aaaa...} is no token; 0 for none
 * @param keywords lowercase strings of which the text must hold one before the pattern is tried
 *     (gitleaks' prefilter); empty to always try
 */
public record DlpRule(String id, Pattern pattern, double entropy, List<String> keywords) {

    public DlpRule {
        keywords = List.copyOf(keywords);
    }

    /** A rule from a config file: its regex (Java syntax) with no entropy floor or keywords. */
    public static DlpRule custom(String id, String regex) {
        return new DlpRule(id, Pattern.compile(regex), 0, List.of());
    }

    /**
     * Whether {@code text} holds a value this rule matches that is not one of {@code ignored}
     * (the sentinels: an operator may give them a realistic shape).
     *
     * @param lower {@code text} in lowercase, for the keyword prefilter
     */
    boolean matches(String text, String lower, Set<String> ignored) {
        if (!keywords.isEmpty() && keywords.stream().noneMatch(lower::contains)) {
            return false;
        }
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            String value = m.groupCount() >= 1 && m.group(1) != null ? m.group(1) : m.group();
            if (!ignored.contains(value) && ignored.stream().noneMatch(value::contains) && shannon(value) >= entropy) {
                return true;
            }
        }
        return false;
    }

    /** Shannon entropy in bits per character. */
    public static double shannon(String value) {
        if (value.isEmpty()) {
            return 0;
        }
        int[] counts = new int[256];
        for (int i = 0; i < value.length(); i++) {
            counts[value.charAt(i) & 0xff]++;
        }
        double bits = 0;
        for (int c : counts) {
            if (c > 0) {
                double p = (double) c / value.length();
                bits -= p * (Math.log(p) / Math.log(2));
            }
        }
        return bits;
    }

    @Override
    public String toString() {
        return "DlpRule[" + id + "]";
    }

    static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }
}
