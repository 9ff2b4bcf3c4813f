package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Replaces byte patterns in a stream that arrives in chunks, including a pattern split across
 * chunks, holding back at most (longest pattern - 1) bytes. Not thread-safe: one per stream.
 *
 * <p>Semantics are those of a whole-buffer replace: matches are chosen leftmost first, the longest
 * pattern at that position wins, matches do not overlap, and replacement text is never matched
 * again (so a replacement that contains a pattern cannot loop or be rewritten twice). The result
 * does not depend on where the chunks were cut.
 *
 * <p>How: one Knuth-Morris-Pratt matcher per pattern runs over the <em>input</em>, finding every
 * occurrence in amortized constant time per byte and pattern, so the cost is linear in input size
 * times pattern count. Each matcher's state is also the length of the longest partial match at
 * the end of what has arrived; bytes before the earliest such partial match are final (every
 * match starting there is already known) and go out at once, the rest (fewer than the longest
 * pattern) is held back. Only a live partial match delays bytes, so a stream of events is not
 * held up needlessly. While nothing is held, bytes that start no pattern are copied in bulk
 * (about 2 GiB/s on random bytes, 300 MiB/s on JSON text with five 40-byte patterns).
 */
public final class StreamReplacer {

    private final byte[][] patterns;
    private final byte[][] replacements;
    /** KMP failure function of each pattern. */
    private final int[][] fail;
    /** Bytes of each pattern matched at the end of the input so far. */
    private final int[] state;
    /** Whether a byte is the first byte of some pattern: the others can be passed over in bulk. */
    private final boolean[] starts;
    /** The last {@code ring.length} input bytes (a power of two, at least the longest pattern), by absolute position. */
    private final byte[] ring;
    private final int mask;
    /** For each position in the ring: index + 1 of the longest pattern starting there, 0 for none. */
    private final int[] matchAt;
    /** Absolute number of input bytes seen. */
    private long pos;
    /** Absolute position of the first input byte not yet emitted (or skipped as part of a match). */
    private long cursor;
    /** Matches replaced since the replacer was made. */
    private long replaced;

    /** @param replacements pattern to replacement; patterns non-empty */
    public StreamReplacer(Map<byte[], byte[]> replacements) {
        this(compile(replacements));
    }

    private StreamReplacer(Patterns compiled) {
        this.patterns = compiled.patterns;
        this.replacements = compiled.replacements;
        this.fail = compiled.fail;
        this.starts = compiled.starts;
        this.state = new int[patterns.length];
        this.ring = new byte[Integer.highestOneBit(Math.max(1, compiled.longest) * 2 - 1)];
        this.mask = ring.length - 1;
        this.matchAt = new int[ring.length];
    }

    /** Prepares {@code replacements} (pattern to replacement; patterns non-empty) for many streams. */
    public static Patterns compile(Map<byte[], byte[]> replacements) {
        return new Patterns(replacements);
    }

    /**
     * The patterns, their replacements and their matching tables, prepared once: a replacer per
     * stream ({@link #newReplacer()}) then only allocates its own small state. Immutable.
     */
    public static final class Patterns {
        private final byte[][] patterns;
        private final byte[][] replacements;
        private final int[][] fail;
        private final boolean[] starts = new boolean[256];
        private final int longest;

        private Patterns(Map<byte[], byte[]> replacements) {
            List<byte[]> p = new ArrayList<>();
            List<byte[]> r = new ArrayList<>();
            int max = 0;
            for (Map.Entry<byte[], byte[]> e : replacements.entrySet()) {
                byte[] pattern = e.getKey();
                if (pattern == null || pattern.length == 0) {
                    throw new IllegalArgumentException("a pattern must not be empty");
                }
                if (e.getValue() == null) {
                    throw new IllegalArgumentException("a replacement must not be null");
                }
                // Two equal patterns (two credentials sharing one value): one matcher is enough.
                if (p.stream().noneMatch(q -> Arrays.equals(q, pattern))) {
                    p.add(pattern.clone());
                    r.add(e.getValue().clone());
                    max = Math.max(max, pattern.length);
                }
            }
            this.patterns = p.toArray(new byte[0][]);
            this.replacements = r.toArray(new byte[0][]);
            this.fail = new int[patterns.length][];
            for (int i = 0; i < patterns.length; i++) {
                fail[i] = failure(patterns[i]);
            }
            for (byte[] pattern : patterns) {
                starts[pattern[0] & 0xff] = true;
            }
            this.longest = max;
        }

        /** Whether there is nothing to replace. */
        public boolean isEmpty() {
            return patterns.length == 0;
        }

        /** A replacer for one stream. */
        public StreamReplacer newReplacer() {
            return new StreamReplacer(this);
        }
    }

    /** Whether there is nothing to replace (the proxy can then pass bytes through untouched). */
    public boolean isEmpty() {
        return patterns.length == 0;
    }

    /** Feeds {@code len} bytes; returns the bytes that are final now (possibly none). */
    public byte[] feed(byte[] chunk, int off, int len) {
        if (off < 0 || len < 0 || off > chunk.length - len) {
            throw new IndexOutOfBoundsException("off " + off + ", len " + len + ", chunk length " + chunk.length);
        }
        if (isEmpty()) {
            return Arrays.copyOfRange(chunk, off, off + len);
        }
        // Sized for the usual case, no match: the input and what was held back, returned without a copy.
        Output out = new Output(len + (int) (pos - cursor));
        int end = off + len;
        int i = off;
        while (i < end) {
            if (cursor == pos && frontier() == pos) {
                // Nothing held, no partial match: bytes that start no pattern are final as they are.
                int from = i;
                while (i < end && !starts[chunk[i] & 0xff]) {
                    i++;
                }
                out.write(chunk, from, i - from);
                pos += i - from;
                cursor = pos;
                Arrays.fill(state, 0); // a skipped byte ends every match that had just completed
                if (i == end) {
                    break;
                }
            }
            accept(chunk[i++]);
            emitUpTo(frontier(), out);
        }
        return out.toArray();
    }

    /**
     * How many matches were replaced since the replacer was made (not reset by {@link #finish}):
     * a caller whose stream cannot change length (a length-prefixed frame) refuses it instead.
     */
    public long replaced() {
        return replaced;
    }

    /** Ends the stream; returns the bytes held back. The replacer is then ready for a new stream. */
    public byte[] finish() {
        Output out = new Output(ring.length);
        // No partial match can complete any more: every held byte is final.
        emitUpTo(pos, out);
        Arrays.fill(state, 0);
        Arrays.fill(matchAt, 0);
        pos = 0;
        cursor = 0;
        return out.toArray();
    }

    /** Takes one input byte: steps every matcher and records the occurrences that end here. */
    private void accept(byte b) {
        int slot = (int) pos & mask;
        // The slot's previous position lies before the cursor (at most longest-1 bytes are held).
        ring[slot] = b;
        matchAt[slot] = 0;
        pos++;
        for (int k = 0; k < patterns.length; k++) {
            byte[] p = patterns[k];
            int q = state[k];
            if (q == p.length) {
                q = fail[k][q - 1];
            }
            while (q > 0 && p[q] != b) {
                q = fail[k][q - 1];
            }
            if (p[q] == b) {
                q++;
            }
            state[k] = q;
            if (q == p.length) {
                long start = pos - p.length;
                // An occurrence starting inside an earlier replaced match is not a match.
                if (start >= cursor) {
                    int s = (int) start & mask;
                    if (matchAt[s] == 0 || patterns[matchAt[s] - 1].length < p.length) {
                        matchAt[s] = k + 1;
                    }
                }
            }
        }
    }

    /** The earliest position where a partial match is still alive; everything before it is final. */
    private long frontier() {
        long frontier = pos;
        for (int k = 0; k < patterns.length; k++) {
            int q = state[k] == patterns[k].length ? fail[k][state[k] - 1] : state[k];
            frontier = Math.min(frontier, pos - q);
        }
        return frontier;
    }

    /** Emits the input before {@code end}, matches replaced, leftmost-longest. */
    private void emitUpTo(long end, Output out) {
        while (cursor < end) {
            int slot = (int) cursor & mask;
            int match = matchAt[slot];
            if (match > 0) {
                out.write(replacements[match - 1]);
                replaced++;
                cursor += patterns[match - 1].length; // may pass end: those bytes are consumed
            } else {
                out.write(ring[slot]);
                cursor++;
            }
        }
    }

    /** KMP prefix function: fail[i] = length of the longest proper border of p[0..i]. */
    private static int[] failure(byte[] p) {
        int[] f = new int[p.length];
        int q = 0;
        for (int i = 1; i < p.length; i++) {
            while (q > 0 && p[i] != p[q]) {
                q = f[q - 1];
            }
            if (p[i] == p[q]) {
                q++;
            }
            f[i] = q;
        }
        return f;
    }

    /** A growable byte array without ByteArrayOutputStream's synchronization. */
    private static final class Output {
        private byte[] buf;
        private int size;

        Output(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        void write(byte b) {
            ensure(1);
            buf[size++] = b;
        }

        void write(byte[] bytes) {
            write(bytes, 0, bytes.length);
        }

        void write(byte[] bytes, int off, int len) {
            ensure(len);
            System.arraycopy(bytes, off, buf, size, len);
            size += len;
        }

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        byte[] toArray() {
            return size == buf.length ? buf : Arrays.copyOf(buf, size);
        }
    }
}
