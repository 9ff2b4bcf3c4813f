package org.cyverse.mesa.egress.injector.scan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Aho-Corasick over bytes: finds any of many byte strings in a stream in one pass, whatever
 * their number, carrying one {@code int} of state across chunk boundaries. Immutable once built,
 * so one automaton serves every request of a config and secret generation.
 *
 * <p>Written here rather than taken from a library: the Java Aho-Corasick libraries on Maven
 * Central (robert-bor's {@code ahocorasick}, {@code hankcs}) match {@code CharSequence}s held
 * whole, while the proxy must scan bytes as they stream and keep the state between chunks.
 *
 * <p>Layout: the bytes that occur in no needle share one class, every other byte has its own;
 * the transitions of every state on every class are one dense table (a DFA: one array read per
 * byte, no failure links to follow): 45 KB for one credential, 1.3 MB for 50. A config whose table would
 * pass {@value #MAX_DENSE_ENTRIES} entries keeps the sparse form instead: the root's transitions
 * dense, the other states' few edges in sorted arrays, with failure links. {@link #match} is the
 * needle found at a state, its own or one ending in its suffix (the dictionary link folded in at
 * build time).
 */
public final class NeedleAutomaton {

    private final int[] rootNext = new int[256];
    private final int[] edgeStart;
    private final byte[] edgeByte;
    private final int[] edgeTarget;
    private final int[] fail;
    /** Index + 1 of a needle that ends at this state (its own or a suffix's), 0 for none. */
    private final int[] match;
    private final int needles;
    /** Largest dense table (states x byte classes): 16 MiB of ints. */
    static final int MAX_DENSE_ENTRIES = 4 << 20;
    /** Byte to class; 0 for the bytes of no needle. */
    private final int[] byteClass = new int[256];
    private final int classes;
    /** {@code delta[state * classes + class]}, or {@code null} for the sparse form. */
    private final int[] delta;

    /** @param needles the byte strings to find, each non-empty; their index is what {@link #match} returns */
    public NeedleAutomaton(List<byte[]> needles) {
        this(needles, MAX_DENSE_ENTRIES);
    }

    /** @param maxDenseEntries the largest dense table to build (0: the sparse form always, as tests compare) */
    NeedleAutomaton(List<byte[]> needles, int maxDenseEntries) {
        this.needles = needles.size();
        // Build the trie with growable per-state child lists.
        List<int[]> children = new ArrayList<>(); // per state: pairs (byte, target), flattened
        List<Integer> terminal = new ArrayList<>();
        children.add(new int[0]);
        terminal.add(0);
        for (int n = 0; n < needles.size(); n++) {
            byte[] needle = needles.get(n);
            if (needle.length == 0) {
                throw new IllegalArgumentException("a needle must not be empty");
            }
            int s = 0;
            for (byte b : needle) {
                int t = child(children.get(s), b & 0xff);
                if (t < 0) {
                    t = children.size();
                    children.add(new int[0]);
                    terminal.add(0);
                    int[] c = children.get(s);
                    int[] grown = Arrays.copyOf(c, c.length + 2);
                    grown[c.length] = b & 0xff;
                    grown[c.length + 1] = t;
                    children.set(s, grown);
                }
                s = t;
            }
            if (terminal.get(s) == 0) {
                terminal.set(s, n + 1);
            }
        }
        int states = children.size();
        edgeStart = new int[states + 1];
        int edges = 0;
        for (int s = 0; s < states; s++) {
            edgeStart[s] = edges;
            edges += children.get(s).length / 2;
        }
        edgeStart[states] = edges;
        edgeByte = new byte[edges];
        edgeTarget = new int[edges];
        for (int s = 0; s < states; s++) {
            int[] c = sortedPairs(children.get(s));
            for (int i = 0; i < c.length / 2; i++) {
                edgeByte[edgeStart[s] + i] = (byte) c[2 * i];
                edgeTarget[edgeStart[s] + i] = c[2 * i + 1];
            }
        }
        fail = new int[states];
        match = new int[states];
        for (int i = edgeStart[0]; i < edgeStart[1]; i++) {
            rootNext[edgeByte[i] & 0xff] = edgeTarget[i];
        }
        // Breadth first: a state's failure link is decided before its children's.
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int i = edgeStart[0]; i < edgeStart[1]; i++) {
            int t = edgeTarget[i];
            match[t] = terminal.get(t);
            queue.add(t);
        }
        List<Integer> order = new ArrayList<>();
        while (!queue.isEmpty()) {
            int s = queue.poll();
            order.add(s);
            for (int i = edgeStart[s]; i < edgeStart[s + 1]; i++) {
                int t = edgeTarget[i];
                fail[t] = sparseNext(fail[s], edgeByte[i] & 0xff);
                match[t] = terminal.get(t) != 0 ? terminal.get(t) : match[fail[t]];
                queue.add(t);
            }
        }
        int c = 1;
        for (byte b : edgeByte) {
            if (byteClass[b & 0xff] == 0) {
                byteClass[b & 0xff] = c++;
            }
        }
        classes = c;
        delta = (long) states * classes <= maxDenseEntries ? dense(order) : null;
    }

    /** The DFA: a state's transition on a class is its own edge, else its failure state's (decided first: breadth first). */
    private int[] dense(List<Integer> breadthFirst) {
        int[] table = new int[fail.length * classes];
        for (int b = 0; b < 256; b++) {
            table[byteClass[b]] = rootNext[b];
        }
        for (int s : breadthFirst) {
            System.arraycopy(table, fail[s] * classes, table, s * classes, classes);
            for (int i = edgeStart[s]; i < edgeStart[s + 1]; i++) {
                table[s * classes + byteClass[edgeByte[i] & 0xff]] = edgeTarget[i];
            }
        }
        return table;
    }

    /** The state after reading byte {@code b} (0-255) in {@code state}; the start state is 0. */
    public int next(int state, int b) {
        return delta != null ? delta[state * classes + byteClass[b]] : sparseNext(state, b);
    }

    private int sparseNext(int state, int b) {
        while (state != 0) {
            int lo = edgeStart[state];
            int hi = edgeStart[state + 1] - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int v = edgeByte[mid] & 0xff;
                if (v == b) {
                    return edgeTarget[mid];
                } else if (v < b) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            state = fail[state];
        }
        return rootNext[b];
    }

    /** The index of a needle that ends at {@code state}, or -1. */
    public int match(int state) {
        return match[state] - 1;
    }

    /** Whether a byte read at the start state stays there: bytes that begin no needle. */
    boolean staysAtRoot(int b) {
        return rootNext[b] == 0;
    }

    /** How many needles were given. */
    public int needles() {
        return needles;
    }

    /** The dense table's size in bytes, 0 for the sparse form. */
    public long tableBytes() {
        return delta == null ? 0 : 4L * delta.length;
    }

    /** How many states the automaton has (its size grows with the needles' total length). */
    public int states() {
        return fail.length;
    }

    private static int child(int[] pairs, int b) {
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i] == b) {
                return pairs[i + 1];
            }
        }
        return -1;
    }

    private static int[] sortedPairs(int[] pairs) {
        int n = pairs.length / 2;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Integer.compare(pairs[2 * x], pairs[2 * y]));
        int[] out = new int[pairs.length];
        for (int i = 0; i < n; i++) {
            out[2 * i] = pairs[2 * order[i]];
            out[2 * i + 1] = pairs[2 * order[i] + 1];
        }
        return out;
    }
}
