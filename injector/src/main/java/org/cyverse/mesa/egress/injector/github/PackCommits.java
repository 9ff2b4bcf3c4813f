package org.cyverse.mesa.egress.injector.github;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The commits of a pack as it streams past (gitformat-pack.txt): every object is inflated to find
 * where it ends, blobs and trees are dropped as they are inflated, and each commit's id (SHA-1 of
 * {@code commit <size>\0<content>}, computed here) is kept with its parents, so that
 * {@link #reaches} can tell a fast-forward from a force push without GitHub's object graph.
 * Deltified commits are rebuilt when their base is a commit of the same pack. Bounded: at most
 * {@value #MAX_COMMITS} commits and {@value #MAX_COMMIT_BYTES} bytes of commit text are kept; past
 * that, nothing more is learnt (and {@link #reaches} answers {@code false}, never a guess).
 * SHA-1 repositories only. One instance per pack; not thread-safe.
 */
public final class PackCommits {

    public static final int MAX_COMMITS = 100_000;
    public static final long MAX_COMMIT_BYTES = 32L << 20;
    /**
     * The most bytes inflated per pack: inflating runs on the client's event loop, and a pack of
     * highly compressed objects could otherwise keep it busy for minutes (zlib reaches about
     * 1000:1; bench/RESULTS-github.md: about 270 MB inflated per second of one core). A pack past it
     * cannot be shown to be a fast-forward.
     */
    public static final long MAX_INFLATED = 1L << 30;
    private static final int COMMIT = 1;
    private static final int OFS_DELTA = 6;
    private static final int REF_DELTA = 7;

    private enum Phase { HEADER, OBJECT, BASE, DATA, TRAILER, DONE, BROKEN }

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final Inflater inflater = new Inflater();
    private final byte[] out = new byte[16 * 1024];
    private final Map<String, List<String>> parents = new HashMap<>();
    /** Commit text by pack offset and by id, for deltas whose base is a commit. */
    private final Map<Long, byte[]> commitAt = new HashMap<>();
    private final Map<String, byte[]> commitById = new HashMap<>();
    private long keptBytes;
    /** Whether a commit was left out for the bounds. */
    private boolean bounded;
    private int rebuilt;
    private long inflated;
    private Phase phase = Phase.HEADER;
    private String problem;
    private long objects;
    private long offset; // of the next byte fed, from the pack's start
    private long objectStart;
    private int type;
    private long size;
    private byte[] base; // a delta's base commit text, or null
    private ByteArrayOutputStream data; // the inflated text of a commit (or of a delta on one), or null

    /** Reads {@code length} more bytes of the pack. */
    public void feed(byte[] bytes, int at, int length) {
        if (phase == Phase.DONE || phase == Phase.BROKEN) {
            return; // past the trailer nothing is read; a broken pack stays broken
        }
        pending.write(bytes, at, length);
        byte[] buf = pending.toByteArray();
        int used = 0;
        try {
            while (phase != Phase.DONE && phase != Phase.BROKEN) {
                int n = step(buf, used);
                if (n == 0) {
                    break;
                }
                used += n;
                offset += n;
            }
        } catch (DataFormatException e) {
            fail("an object does not inflate: " + e.getMessage());
        } catch (RuntimeException e) {
            fail("an object cannot be read (" + e.getClass().getSimpleName() + ")"); // a bad varint or delta: refused, never streamed on
        }
        pending.reset();
        if (phase != Phase.DONE && phase != Phase.BROKEN) {
            pending.write(buf, used, buf.length - used);
        }
    }

    /** How many bytes at {@code at} one step took; 0 when it needs more. */
    private int step(byte[] buf, int at) throws DataFormatException {
        int left = buf.length - at;
        switch (phase) {
            case HEADER -> {
                if (left < 12) {
                    return 0;
                }
                int version = (buf[at + 7] & 0xff) | (buf[at + 6] & 0xff) << 8;
                if (buf[at] != 'P' || buf[at + 1] != 'A' || buf[at + 2] != 'C' || buf[at + 3] != 'K' || version < 2 || version > 3) {
                    fail("the push's pack has no PACK header");
                    return 0;
                }
                objects = ((buf[at + 8] & 0xffL) << 24) | ((buf[at + 9] & 0xff) << 16) | ((buf[at + 10] & 0xff) << 8) | (buf[at + 11] & 0xff);
                phase = objects == 0 ? Phase.TRAILER : Phase.OBJECT;
                return 12;
            }
            case OBJECT -> {
                int i = at;
                if (i >= buf.length) {
                    return 0;
                }
                int c = buf[i++] & 0xff;
                type = (c >> 4) & 7;
                size = c & 15;
                int shift = 4;
                while ((c & 0x80) != 0) {
                    if (i >= buf.length) {
                        return 0;
                    }
                    c = buf[i++] & 0xff;
                    size |= (long) (c & 0x7f) << shift;
                    shift += 7;
                }
                objectStart = offset;
                base = null;
                phase = type == OFS_DELTA || type == REF_DELTA ? Phase.BASE : Phase.DATA;
                data = type == COMMIT ? new ByteArrayOutputStream() : null;
                inflater.reset();
                return i - at;
            }
            case BASE -> {
                if (type == REF_DELTA) {
                    if (left < 20) {
                        return 0;
                    }
                    base = commitById.get(HexFormat.of().formatHex(buf, at, at + 20));
                    data = base != null ? new ByteArrayOutputStream() : null;
                    phase = Phase.DATA;
                    return 20;
                }
                int i = at;
                if (i >= buf.length) {
                    return 0;
                }
                int c = buf[i++] & 0xff;
                long back = c & 0x7f;
                while ((c & 0x80) != 0) {
                    if (i >= buf.length) {
                        return 0;
                    }
                    c = buf[i++] & 0xff;
                    back = ((back + 1) << 7) | (c & 0x7f);
                }
                base = commitAt.get(objectStart - back);
                data = base != null ? new ByteArrayOutputStream() : null;
                phase = Phase.DATA;
                return i - at;
            }
            case DATA -> {
                if (left == 0) {
                    return 0;
                }
                inflater.setInput(buf, at, left);
                while (!inflater.finished()) {
                    int n = inflater.inflate(out);
                    inflated += n;
                    if (inflated > MAX_INFLATED) {
                        fail("it inflates to more than " + (MAX_INFLATED >> 30) + " GiB, past what the proxy reads for fast-forwards");
                        return 0;
                    }
                    if (n == 0) {
                        if (inflater.needsDictionary()) {
                            fail("an object needs a zlib dictionary, which packs never use");
                        }
                        break; // needs more input
                    }
                    if (data != null) {
                        data.write(out, 0, n);
                        if (data.size() > (1 << 20)) {
                            data = null; // no commit is that large: stop keeping it (its id stays unknown)
                        }
                    }
                }
                int taken = left - inflater.getRemaining();
                if (inflater.finished()) {
                    objectDone();
                }
                return taken;
            }
            case TRAILER -> {
                if (left < 20) {
                    return 0;
                }
                phase = Phase.DONE;
                inflater.end(); // its native memory goes now, not when a cleaner gets to it
                return 20;
            }
            default -> {
                return 0;
            }
        }
    }

    private void objectDone() {
        if (data != null) {
            byte[] text = base != null ? PackDelta.apply(base, data.toByteArray()) : data.toByteArray();
            if (text != null && (base != null || text.length == size)) {
                rebuilt += base != null ? 1 : 0;
                commit(text);
            }
        }
        data = null;
        base = null;
        phase = --objects == 0 ? Phase.TRAILER : Phase.OBJECT;
    }

    private void commit(byte[] text) {
        if (parents.size() >= MAX_COMMITS || keptBytes + text.length > MAX_COMMIT_BYTES) {
            bounded = true;
            return;
        }
        String id = sha1("commit " + text.length + "\0", text);
        // As git reads a commit (commit.c, parse_commit_buffer): "tree <id>" first, then the parents,
        // each on the line right after; a "parent" line anywhere else is no parent to git.
        List<String> ps = new ArrayList<>();
        String[] lines = new String(text, StandardCharsets.ISO_8859_1).split("\n", -1);
        if (lines.length == 0 || !lines[0].matches("tree [0-9a-f]{40}")) {
            return; // not a commit git would read: its id stays unknown
        }
        for (int i = 1; i < lines.length && lines[i].startsWith("parent "); i++) {
            String parent = lines[i].substring(7);
            if (!parent.matches("[0-9a-f]{40}")) {
                return;
            }
            ps.add(parent);
        }
        parents.put(id, ps);
        commitAt.put(objectStart, text);
        commitById.put(id, text);
        keptBytes += text.length;
    }

    private static String sha1(String header, byte[] text) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-1");
            sha.update(header.getBytes(StandardCharsets.ISO_8859_1));
            return HexFormat.of().formatHex(sha.digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void fail(String why) {
        phase = Phase.BROKEN;
        problem = why;
        inflater.end();
    }

    /** Frees the inflater's native memory (a push abandoned mid-pack). */
    public void close() {
        if (phase != Phase.DONE && phase != Phase.BROKEN) {
            phase = Phase.BROKEN;
            problem = "abandoned";
            inflater.end();
        }
    }

    /** How many deltified commits were rebuilt from their base. */
    public int rebuilt() {
        return rebuilt;
    }

    /** Whether the whole pack has been read (its trailer too). */
    public boolean done() {
        return phase == Phase.DONE;
    }

    /** Why the pack could not be read, or {@code null}. */
    public String problem() {
        return problem;
    }

    /**
     * Whether {@code ancestor} is reachable from {@code tip} through commits of this pack: then an
     * update from {@code ancestor} to {@code tip} is a fast-forward. {@code false} when it is not,
     * or cannot be told (a commit the pack does not carry in full).
     */
    public boolean reaches(String tip, String ancestor) {
        if (tip.equals(ancestor)) {
            return true;
        }
        List<String> todo = new ArrayList<>(List.of(tip));
        Set<String> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            String id = todo.remove(todo.size() - 1);
            List<String> ps = parents.get(id);
            if (ps == null || !seen.add(id)) {
                continue;
            }
            for (String p : ps) {
                if (p.equals(ancestor)) {
                    return true;
                }
                todo.add(p);
            }
        }
        return false;
    }

    /**
     * The commits where the pack's history from {@code tip} leaves the pack: the parents of its
     * commits reachable from {@code tip} that the pack does not carry ({@code tip} itself when the
     * pack does not carry it). git sends only what the server lacks, so these are on the server,
     * and an older tip is an ancestor of {@code tip} exactly when it is reached in the pack or is
     * an ancestor of one of these (GitHub then says so: {@link GitHubAncestry}). Empty when the
     * pack's commits were not all kept (past its bounds): nothing can then be told.
     */
    public Set<String> boundary(String tip) {
        if (bounded) {
            return Set.of();
        }
        Set<String> out = new LinkedHashSet<>();
        List<String> todo = new ArrayList<>(List.of(tip));
        Set<String> visited = new HashSet<>();
        while (!todo.isEmpty()) {
            String id = todo.remove(todo.size() - 1);
            if (!visited.add(id)) {
                continue;
            }
            List<String> ps = parents.get(id);
            if (ps == null) {
                out.add(id);
            } else {
                todo.addAll(ps);
            }
        }
        return out;
    }
}
