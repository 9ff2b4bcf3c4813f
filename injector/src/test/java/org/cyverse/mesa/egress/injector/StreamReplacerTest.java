package org.cyverse.mesa.egress.injector;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Whatever the chunking, the output is what a whole-buffer replace gives, and memory stays bounded. */
class StreamReplacerTest {

    private static StreamReplacer replacer(String... pairs) {
        Map<byte[], byte[]> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i].getBytes(ISO_8859_1), pairs[i + 1].getBytes(ISO_8859_1));
        }
        return new StreamReplacer(map);
    }

    /** Feeds {@code input} cut at {@code cuts}, then finishes. */
    private static String run(StreamReplacer r, String input, int... cuts) {
        byte[] bytes = input.getBytes(ISO_8859_1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int from = 0;
        for (int cut : cuts) {
            out.writeBytes(r.feed(bytes, from, cut - from));
            from = cut;
        }
        out.writeBytes(r.feed(bytes, from, bytes.length - from));
        out.writeBytes(r.finish());
        return out.toString(ISO_8859_1);
    }

    @Test
    void itCountsTheMatchesItReplacedAcrossChunksAndStreams() {
        StreamReplacer r = replacer("SECRET", "[s]");
        assertEquals("xx yy", run(r, "xx yy", 2));
        assertEquals(0, r.replaced(), "nothing replaced in a stream without a match");
        assertEquals("a [s] b [s]", run(r, "a SECRET b SECRET", 5));
        assertEquals(2, r.replaced(), "both matches, the first split across two chunks");
    }

    @Test
    void aPatternSplitAtEveryPositionAcrossTwoChunks() {
        String input = "HTTP/1.1 401\r\n\r\n{\"error\":\"bad key sk-real-0123456789\"}";
        String expected = input.replace("sk-real-0123456789", "sk-sentinel");
        for (int cut = 0; cut <= input.length(); cut++) {
            assertEquals(expected, run(replacer("sk-real-0123456789", "sk-sentinel"), input, cut), "cut at " + cut);
        }
    }

    @Test
    void aPatternSplitAtEveryPairOfPositionsAcrossThreeChunks() {
        String input = "xx SECRET yy SECRET";
        String expected = "xx [s] yy [s]";
        for (int a = 0; a <= input.length(); a++) {
            for (int b = a; b <= input.length(); b++) {
                assertEquals(expected, run(replacer("SECRET", "[s]"), input, a, b), "cuts at " + a + ", " + b);
            }
        }
    }

    static Stream<Arguments> semantics() {
        return Stream.of(
                Arguments.of("leftmost wins over a later overlap", new String[] {"abc", "1", "bcd", "2"}, "abcd", "1d"),
                Arguments.of("longest wins at one position", new String[] {"ab", "X", "abc", "Y"}, "abcab", "YX"),
                Arguments.of("longest wins, listed either way", new String[] {"abc", "Y", "ab", "X"}, "abcab", "YX"),
                Arguments.of("a longer candidate that fails falls back to the shorter", new String[] {"ab", "X", "abcd", "Y"}, "abcx", "Xcx"),
                Arguments.of("self-overlap: no overlapping matches", new String[] {"aa", "b"}, "aaaaa", "bba"),
                Arguments.of("replacement longer", new String[] {"k", "LONGER"}, "akb", "aLONGERb"),
                Arguments.of("replacement shorter", new String[] {"secret", "s"}, "a secret b", "a s b"),
                Arguments.of("replacement empty", new String[] {"secret", ""}, "secretsecret", ""),
                Arguments.of("replacement text is not matched again", new String[] {"a", "aa"}, "aaa", "aaaaaa"),
                Arguments.of("no re-scan across the join", new String[] {"ab", "a"}, "aabb", "aab"),
                Arguments.of("replacement holding another pattern", new String[] {"x", "y", "y", "x"}, "xyxy", "yxyx"),
                Arguments.of("partial match at the end is flushed", new String[] {"secret", "s"}, "a secre", "a secre"),
                Arguments.of("binary bytes", new String[] {"\u0000\u00ff", "\u00ff\u0000"}, "\u0000\u0000\u00ff\u00ff", "\u0000\u00ff\u0000\u00ff"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semantics")
    void matchesLeftmostLongestWithoutRescanning(String name, String[] pairs, String input, String expected) {
        assertEquals(expected, reference(input, pairs), "the reference agrees");
        for (int cut = 0; cut <= input.length(); cut++) {
            assertEquals(expected, run(replacer(pairs), input, cut), "cut at " + cut);
        }
    }

    @Test
    void holdsBackOnlyALivePartialMatchAndNeverAWholePattern() {
        StreamReplacer r = replacer("SECRET", "x");
        String input = "data: abc SECRE";
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < input.length(); i++) {
            out.append(new String(r.feed(input.getBytes(ISO_8859_1), i, 1), ISO_8859_1));
            String fed = input.substring(0, i + 1);
            int held = fed.length() - out.length();
            assertTrue(held <= "SECRET".length() - 1, "held " + held);
            assertTrue("SECRET".startsWith(fed.substring(out.length())), "only a prefix of the pattern is held: " + fed.substring(out.length()));
        }
        assertEquals("data: abc ", out.toString(), "an event that cannot be a secret goes out at once");
        assertEquals("SECRE", new String(r.finish(), ISO_8859_1));
    }

    @Test
    void memoryStaysBoundedOverALongStream() {
        StreamReplacer r = replacer("0123456789abcdef", "[redacted]");
        byte[] chunk = "0123456789abcde-".repeat(4096).getBytes(ISO_8859_1); // near misses everywhere
        long in = 0;
        long out = 0;
        for (int i = 0; i < 256; i++) {
            in += chunk.length;
            out += r.feed(chunk, 0, chunk.length).length;
            assertTrue(in - out <= 15, "held back " + (in - out));
        }
        assertEquals(in, out + r.finish().length);
    }

    @Test
    void randomInputsMatchAWholeBufferReference() {
        Random random = new Random(20261129L);
        for (int round = 0; round < 3000; round++) {
            int count = 1 + random.nextInt(4);
            String[] pairs = new String[count * 2];
            for (int i = 0; i < count; i++) {
                pairs[2 * i] = randomText(random, 1 + random.nextInt(5), "abc");
                pairs[2 * i + 1] = randomText(random, random.nextInt(6), "abcXY");
            }
            String input = randomText(random, random.nextInt(60), "abcd");
            int[] cuts = random.ints(random.nextInt(5), 0, input.length() + 1).sorted().toArray();
            String expected = count == 1 ? input.replace(pairs[0], pairs[1]) : reference(input, pairs);
            assertEquals(expected, run(replacer(pairs), input, cuts),
                    () -> "patterns " + Arrays.toString(pairs) + ", input " + input + ", cuts " + Arrays.toString(cuts));
        }
    }

    @Test
    void finishReadiesTheReplacerForAnotherStream() {
        StreamReplacer r = replacer("SECRET", "s");
        assertEquals("a SEC", run(r, "a SEC"));
        assertEquals("RET s", run(r, "RET SECRET"), "no state leaks from one stream into the next");
    }

    @Test
    void withoutPatternsBytesPassUntouched() {
        StreamReplacer r = new StreamReplacer(Map.of());
        byte[] bytes = {1, 2, 3};

        assertTrue(r.isEmpty());
        assertArrayEquals(bytes, r.feed(bytes, 0, 3));
        assertArrayEquals(new byte[0], r.finish());
    }

    @Test
    void emptyPatternsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new StreamReplacer(Map.of(new byte[0], new byte[] {1})));
    }

    /** Leftmost-longest, non-overlapping, over the whole buffer at once. */
    private static String reference(String input, String[] pairs) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < input.length()) {
            int best = -1;
            for (int p = 0; p < pairs.length; p += 2) {
                if (input.startsWith(pairs[p], i) && (best < 0 || pairs[p].length() > pairs[best].length())) {
                    best = p;
                }
            }
            if (best >= 0) {
                out.append(pairs[best + 1]);
                i += pairs[best].length();
            } else {
                out.append(input.charAt(i++));
            }
        }
        return out.toString();
    }

    private static String randomText(Random random, int length, String alphabet) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
