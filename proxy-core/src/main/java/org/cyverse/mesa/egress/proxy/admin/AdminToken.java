package org.cyverse.mesa.egress.proxy.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.logging.Logger;

/**
 * The bearer token of state-changing admin calls ({@code admin.token_file}). The agent shares the
 * pod's network and reaches the admin port: only the token tells the operator apart. The file is
 * read for every call, so a rotated Kubernetes Secret is honoured at once, and compared in
 * constant time (as digests, so neither content nor length leaks through timing).
 *
 * <p>The file holds one token (its caller is recorded as {@code admin}), or, one per line,
 * {@code LABEL TOKEN} pairs, so that each operator or inbox has a token of its own and the audit
 * records say who decided (an extension; {@code #} starts a comment line).
 */
public final class AdminToken {

    private static final Logger LOG = Logger.getLogger(AdminToken.class.getName());
    /** Shorter tokens are refused at start: they could be guessed through the admin port. */
    static final int MIN_LENGTH = 16;

    /** Why a call was let through or not. */
    enum Check { OK, NOT_CONFIGURED, MISSING, WRONG, UNREADABLE }

    /** A checked call: {@code label} names whose token it was (when {@code OK}). */
    record Caller(Check check, String label) {}

    /** The label of a file holding a single token. */
    static final String DEFAULT_LABEL = "admin";
    private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private final Path file;

    private AdminToken(Path file) {
        this.file = file;
    }

    /**
     * @param file {@code admin.token_file}, or {@code null}: every state-changing call is then refused
     * @throws IOException naming {@code admin.token_file} when the file cannot be read or holds too short a token
     */
    public static AdminToken load(Path file) throws IOException {
        if (file != null) {
            read(file);
        }
        return new AdminToken(file);
    }

    /**
     * Checks {@code admin.token_file} as the proxy's start will (the launcher calls it first, to
     * exit 2 for a bad config): readable, one token of at least {@value #MIN_LENGTH} characters.
     */
    public static void verify(Path file) throws IOException {
        load(file);
    }

    /**
     * The first token of a token file, read as the proxy reads it (one token, or {@code LABEL TOKEN}
     * lines): what an operator's command sends as its Bearer token.
     *
     * @throws IOException naming the file when it cannot be read or is not a token file
     */
    public static String firstToken(Path file) throws IOException {
        return read(file).values().iterator().next();
    }

    /** Checks an {@code Authorization} header value ({@code Bearer <token>}), or {@code null}. */
    Caller check(String authorization) {
        if (file == null) {
            return new Caller(Check.NOT_CONFIGURED, null);
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return new Caller(Check.MISSING, null);
        }
        java.util.Map<String, String> tokens;
        try {
            tokens = read(file);
        } catch (IOException e) {
            LOG.warning("admin.token_file cannot be read now (" + e.getMessage() + "); state-changing admin calls are refused");
            return new Caller(Check.UNREADABLE, null);
        }
        byte[] given = digest(authorization.substring(7).strip());
        String label = null;
        for (var entry : tokens.entrySet()) {
            // Every token is compared, so the time does not tell which line matched.
            if (MessageDigest.isEqual(digest(entry.getValue()), given) && label == null) {
                label = entry.getKey();
            }
        }
        return label != null ? new Caller(Check.OK, label) : new Caller(Check.WRONG, null);
    }

    /** Label to token, in the file's order. */
    private static java.util.Map<String, String> read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IOException("admin.token_file " + file + " cannot be read: " + e.getClass().getSimpleName(), e);
        }
        java.util.Map<String, String> tokens = new java.util.LinkedHashMap<>();
        java.util.List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        if (lines.size() == 1 && lines.get(0).split("\\s+").length == 1) {
            tokens.put(DEFAULT_LABEL, lines.get(0));
        } else {
            for (String line : lines) {
                String[] parts = line.split("\\s+");
                if (parts.length != 2 || !LABEL.matcher(parts[0]).matches() || tokens.putIfAbsent(parts[0], parts[1]) != null) {
                    throw new IOException("admin.token_file " + file + " must hold one token, or one LABEL TOKEN pair per line with distinct"
                            + " labels of A-Z, a-z, 0-9, '.', '_', '@', '-'");
                }
            }
        }
        if (tokens.isEmpty()) {
            throw new IOException("admin.token_file " + file + " holds no token (write one, e.g. openssl rand -hex 32)");
        }
        for (String token : tokens.values()) {
            if (token.length() < MIN_LENGTH || token.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) {
                throw new IOException("admin.token_file " + file + " must hold tokens of at least " + MIN_LENGTH
                        + " characters without spaces (e.g. openssl rand -hex 32)");
            }
        }
        return tokens;
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
