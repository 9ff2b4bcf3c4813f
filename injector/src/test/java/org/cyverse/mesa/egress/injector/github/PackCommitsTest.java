package org.cyverse.mesa.egress.injector.github;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fast-forwards told from packs the machine's git writes ({@code git pack-objects}, as
 * {@code git push} does): a linear history and a merge reach the old tip, a rewritten one does
 * not, and a pack fed in any pieces reads the same.
 */
class PackCommitsTest {

    @TempDir
    Path dir;

    String git(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", dir.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", args) + ": " + out);
        return out.strip();
    }

    String commit(String file, String text) throws Exception {
        Files.writeString(dir.resolve(file), text);
        git("add", file);
        git("commit", "-qm", "change " + file + " " + text.length());
        return git("rev-parse", "HEAD");
    }

    /** The pack git would push for {@code tip} to a server that has {@code have}. */
    byte[] pack(String tip, String have, String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString(), "pack-objects", "--stdout", "--revs", "--thin"));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().write((tip + "\n" + (have == null ? "" : "^" + have + "\n")).getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        byte[] pack;
        try (InputStream in = p.getInputStream()) {
            pack = in.readAllBytes();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0);
        return pack;
    }

    static PackCommits read(byte[] pack, int piece) {
        PackCommits commits = new PackCommits();
        for (int at = 0; at < pack.length; at += piece) {
            commits.feed(pack, at, Math.min(piece, pack.length - at));
        }
        return commits;
    }

    @Test
    void aLinearHistoryAndAMergeReachTheOldTipARewriteDoesNot() throws Exception {
        git("init", "-q", "-b", "main");
        String a = commit("a.txt", "one\n");
        String c = commit("a.txt", "one\ntwo\n");
        c = commit("b.txt", "three\n");
        for (int piece : new int[] {1, 5, 100, 1 << 20}) {
            PackCommits read = read(pack(c, a), piece);
            assertTrue(read.done(), "read to its trailer in pieces of " + piece + ": " + read.problem());
            assertTrue(read.reaches(c, a), "a fast-forward, in pieces of " + piece);
        }

        git("checkout", "-q", "-b", "side", a);
        String side = commit("c.txt", "side\n");
        git("checkout", "-q", "main");
        git("merge", "-q", "--no-ff", "-m", "merge", "side");
        String merge = git("rev-parse", "HEAD");
        assertTrue(read(pack(merge, c), 4096).reaches(merge, c), "a merge on top of the old tip is a fast-forward");
        assertTrue(read(pack(merge, side), 4096).reaches(merge, side));

        git("reset", "-q", "--hard", a);
        String rewritten = commit("a.txt", "rewritten\n");
        PackCommits forced = read(pack(rewritten, c), 4096);
        assertTrue(forced.done());
        assertFalse(forced.reaches(rewritten, c), "history rewritten from under the old tip is a force push");
    }

    @Test
    void deltifiedCommitsAreRebuiltFromTheirBase() throws Exception {
        git("init", "-q", "-b", "main");
        String base = commit("a.txt", "0\n");
        String message = "a long commit message line that repeats in every commit\n".repeat(60);
        String tip = base;
        for (int i = 0; i < 20; i++) {
            Files.writeString(dir.resolve("a.txt"), (i + 1) + "\n");
            git("add", "a.txt");
            git("commit", "-qm", "change " + i + "\n\n" + message);
            tip = git("rev-parse", "HEAD");
        }
        // Commits this alike are stored as deltas of one another (git verify-pack -v shows them at depth 1).
        PackCommits read = read(pack(tip, base, "--window=250", "--depth=50"), 7);
        assertTrue(read.done(), read.problem());
        assertTrue(read.rebuilt() > 0, "the pack holds deltified commits");
        assertTrue(read.reaches(tip, base), "a chain through rebuilt commits");
    }

    @Test
    void aParentLineWhereGitReadsNoneIsNoParent() throws Exception {
        git("init", "-q", "-b", "main");
        String old = commit("a.txt", "one\n");
        String tree = git("rev-parse", "HEAD^{tree}");
        // git reads parents only right after "tree" (commit.c): this commit is a root to git, whatever its last header says.
        Path raw = dir.resolve("raw-commit");
        Files.writeString(raw, "tree " + tree + "\nauthor t <t@example.org> 1700000000 +0000\ncommitter t <t@example.org> 1700000000 +0000\n"
                + "parent " + old + "\n\nrewritten\n");
        String fake = git("hash-object", "-t", "commit", "--literally", "-w", raw.toString());
        PackCommits read = read(pack(fake, old), 4096);
        assertTrue(read.done(), read.problem());
        assertFalse(read.reaches(fake, old), "a parent git does not see does not make a fast-forward");
    }

    @Test
    void whatIsNotAPackIsSaidSo() {
        PackCommits garbage = read("PUSH this is not a pack at all".getBytes(StandardCharsets.US_ASCII), 3);
        assertFalse(garbage.done());
        assertTrue(garbage.problem().contains("PACK"), garbage.problem());
        PackCommits cut = read(new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 3}, 12);
        assertFalse(cut.done(), "three objects announced, none sent");
        assertNull(cut.problem());
    }

    @Test
    void aDeltaIsAppliedAsGitWritesIt() {
        byte[] base = "tree 1\nparent 2\n\nmessage\n".getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream delta = new ByteArrayOutputStream();
        delta.write(base.length); // source size
        delta.write(base.length + 4); // target size
        delta.write(0x80 | 0x10); // copy from offset 0, length byte follows
        delta.write(base.length);
        delta.write(4); // insert 4 bytes
        delta.writeBytes("more".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals("tree 1\nparent 2\n\nmessage\nmore".getBytes(StandardCharsets.US_ASCII), PackDelta.apply(base, delta.toByteArray()));
        assertNull(PackDelta.apply(new byte[3], delta.toByteArray()), "a delta for another base");
        assertNull(PackDelta.apply(base, new byte[] {(byte) base.length}), "a delta cut short after its source size");
    }

}
