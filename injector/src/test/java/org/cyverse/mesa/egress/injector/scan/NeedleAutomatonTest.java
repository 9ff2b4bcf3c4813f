package org.cyverse.mesa.egress.injector.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The automaton finds what a naive search finds, in its dense and its sparse form alike. */
class NeedleAutomatonTest {

    @Test
    void denseAndSparseFormsFindEveryOccurrenceANaiveSearchFinds() {
        Random random = new Random(7);
        List<byte[]> needles = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] n = new byte[2 + random.nextInt(6)];
            for (int j = 0; j < n.length; j++) {
                n[j] = (byte) ('a' + random.nextInt(4)); // a small alphabet: many overlaps and failure links
            }
            needles.add(n);
        }
        NeedleAutomaton dense = new NeedleAutomaton(needles);
        NeedleAutomaton sparse = new NeedleAutomaton(needles, 0);
        assertTrue(dense.tableBytes() > 0);
        assertEquals(0, sparse.tableBytes());
        byte[] text = new byte[20000];
        for (int i = 0; i < text.length; i++) {
            text[i] = (byte) ('a' + random.nextInt(5));
        }
        int d = 0;
        int s = 0;
        for (int i = 0; i < text.length; i++) {
            d = dense.next(d, text[i] & 0xff);
            s = sparse.next(s, text[i] & 0xff);
            boolean naive = false;
            for (byte[] n : needles) {
                naive |= endsWith(text, i + 1, n);
            }
            assertEquals(naive, dense.match(d) >= 0, "dense at " + i);
            assertEquals(naive, sparse.match(s) >= 0, "sparse at " + i);
            if (naive) {
                assertTrue(endsWith(text, i + 1, needles.get(dense.match(d))), "the needle reported ends here");
            }
        }
    }

    @Test
    void fiftyCredentialsMakeATableOfAFewMegabytesAtMost() {
        List<byte[]> needles = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String secret = "sk-proj-" + i + "-Zq8x0vR2mYt6wP4kLsAbCdEfGhIj0123";
            needles.add(secret.getBytes(StandardCharsets.UTF_8));
            needles.addAll(EncodedForms.base64Fragments(secret.getBytes(StandardCharsets.UTF_8)));
        }
        NeedleAutomaton automaton = new NeedleAutomaton(needles);
        assertTrue(automaton.tableBytes() > 0 && automaton.tableBytes() < 8L << 20, automaton.tableBytes() + " bytes");
    }

    private static boolean endsWith(byte[] text, int end, byte[] needle) {
        if (end < needle.length) {
            return false;
        }
        for (int k = 0; k < needle.length; k++) {
            if (text[end - needle.length + k] != needle[k]) {
                return false;
            }
        }
        return true;
    }
}
