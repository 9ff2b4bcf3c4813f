package org.cyverse.mesa.egress.config;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Suggests the known key a misspelt one was probably meant to be ({@code hots} -> {@code host}). */
final class DidYouMean {

    private DidYouMean() {}

    /**
     * The single known word closest to {@code word}, if it is close enough to be a typo: at most
     * 2 edits (1 for words of up to 4 letters), or the same word in other case or with dashes for
     * underscores. Empty when none or several are equally close, since a wrong hint misleads.
     */
    static Optional<String> closest(String word, Collection<String> known) {
        String normalized = normalize(word);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        boolean tie = false;
        for (String candidate : known) {
            int distance = normalize(candidate).equals(normalized) ? 0 : distance(word, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
                tie = false;
            } else if (distance == bestDistance) {
                tie = true;
            }
        }
        int allowed = word.length() <= 4 ? 1 : 2;
        return best != null && !tie && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** The message for an unknown key: a suggestion when one is clear, else the keys known there. */
    static String unknownKey(String key, List<String> known) {
        Optional<String> suggestion = closest(key, known);
        if (suggestion.isPresent()) {
            return "unknown key; did you mean \"" + suggestion.get() + "\"?";
        }
        return known.isEmpty() ? "unknown key" : "unknown key (known here: " + String.join(", ", known) + ")";
    }

    private static String normalize(String word) {
        return word.toLowerCase(Locale.ROOT).replace('-', '_');
    }

    /** Levenshtein distance, with a transposition counting as one edit (Damerau, restricted). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
