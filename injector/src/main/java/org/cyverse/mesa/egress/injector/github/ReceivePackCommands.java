package org.cyverse.mesa.egress.injector.github;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads the command list at the start of a {@code git-receive-pack} request body, as it streams
 * in, without holding the pack that follows it (git's pack-protocol.txt, "Reference Update
 * Request and Packfile Transfer"): pkt-lines of {@code <old-id> SP <new-id> SP <ref>}, the first
 * with {@code NUL <capabilities>}, {@code shallow <id>} lines before them, a flush-pkt after (and,
 * with the {@code push-options} capability, the options up to a second flush).
 * Bounded: at most {@value #MAX_BYTES} bytes and {@value #MAX_COMMANDS} commands, or the body is
 * refused. Signed pushes ({@code push-cert}) are refused: their commands sit inside the
 * certificate. One instance per request body; not thread-safe.
 */
public final class ReceivePackCommands {

    /** The most command-list bytes read before the list must have ended. */
    public static final int MAX_BYTES = 64 * 1024;
    public static final int MAX_COMMANDS = 256;
    private static final Pattern OBJECT_ID = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

    /**
     * One ref update.
     *
     * @param oldId the id the client saw (all zeros: the ref is created)
     * @param newId the id it is set to (all zeros: the ref is deleted)
     */
    public record Command(String oldId, String newId, String ref) {
        public boolean deletes() {
            return newId.chars().allMatch(c -> c == '0');
        }

        public boolean creates() {
            return oldId.chars().allMatch(c -> c == '0');
        }
    }

    /** Where the reading stands: more bytes needed, the list read, or a body that is not a command list (with why). */
    public enum State { READING, DONE, MALFORMED }

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final List<Command> commands = new ArrayList<>();
    private final List<String> capabilities = new ArrayList<>();
    private State state = State.READING;
    private String problem;
    private int read;
    private byte[] rest = new byte[0];
    /** Whether the push options (between the commands' flush and the pack) are being read. */
    private boolean options;

    /** Reads {@code length} more body bytes from {@code bytes} at {@code offset}; bytes past the list are not looked at. */
    public State feed(byte[] bytes, int offset, int length) {
        if (state != State.READING) {
            return state;
        }
        pending.write(bytes, offset, length);
        read += length;
        byte[] buf = pending.toByteArray();
        int at = 0;
        while (state == State.READING && buf.length - at >= 4) {
            int size = hexLength(buf, at);
            if (size < 0 || size == 1 || size == 2 || size == 3) {
                return fail("the body is not a git receive-pack request (bad pkt-line length)");
            }
            if (size == 0 && !options && capabilities.contains("push-options") && !commands.isEmpty()) {
                options = true; // git push -o: the options follow the commands, up to a second flush
                at += 4;
                continue;
            }
            if (size == 0) {
                state = State.DONE; // flush-pkt: the pack (if any) follows
                at += 4;
                rest = Arrays.copyOfRange(buf, at, buf.length);
                break;
            }
            if (buf.length - at < size) {
                break;
            }
            if (!options) {
                line(new String(buf, at + 4, size - 4, StandardCharsets.ISO_8859_1));
            }
            at += size;
        }
        int waiting = buf.length - at; // bytes of a line not complete yet
        if (state == State.READING && (read - waiting > MAX_BYTES || waiting > MAX_BYTES)) {
            return fail("the push's command list is longer than " + MAX_BYTES + " bytes");
        }
        pending.reset();
        pending.write(buf, at, buf.length - at);
        return state;
    }

    /** The body ended; a list that had not ended is malformed. */
    public State finish() {
        return state == State.READING ? fail("the body ended inside the push's command list") : state;
    }

    private void line(String text) {
        String line = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (commands.isEmpty() && line.startsWith("shallow ")) {
            if (!OBJECT_ID.matcher(line.substring(8)).matches()) {
                fail("a shallow line without an object id");
            }
            return;
        }
        if (line.startsWith("push-cert")) {
            fail("signed pushes (git push --signed) are not supported through the proxy");
            return;
        }
        int nul = line.indexOf('\0');
        if (nul >= 0) {
            if (!commands.isEmpty()) {
                fail("capabilities after the first command");
                return;
            }
            for (String cap : line.substring(nul + 1).split(" ")) {
                if (!cap.isEmpty()) {
                    capabilities.add(cap);
                }
            }
            line = line.substring(0, nul);
        }
        String[] parts = line.split(" ", -1);
        if (parts.length != 3 || !OBJECT_ID.matcher(parts[0]).matches() || !OBJECT_ID.matcher(parts[1]).matches()
                || parts[0].length() != parts[1].length()) {
            fail("a command is not \"<old-id> <new-id> <ref>\"");
            return;
        }
        if (commands.size() == MAX_COMMANDS) {
            fail("the push updates more than " + MAX_COMMANDS + " refs");
            return;
        }
        commands.add(new Command(parts[0], parts[1], parts[2]));
    }

    private State fail(String why) {
        state = State.MALFORMED;
        problem = why;
        pending.reset();
        return state;
    }

    private static int hexLength(byte[] b, int at) {
        int n = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(b[at + i], 16);
            if (d < 0) {
                return -1;
            }
            n = n * 16 + d;
        }
        return n;
    }

    /** The bytes after the list's flush-pkt in the last feed (the pack's start); empty before. */
    public byte[] rest() {
        return rest.clone();
    }

    /** Why the body is malformed, or {@code null}. */
    public String problem() {
        return problem;
    }

    /** The commands read (all of them once {@link State#DONE}). */
    public List<Command> commands() {
        return List.copyOf(commands);
    }

    /** The capabilities the client asked for on its first command ({@code report-status}, {@code side-band-64k}, ...). */
    public List<String> capabilities() {
        return List.copyOf(capabilities);
    }
}
