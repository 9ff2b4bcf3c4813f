package org.cyverse.mesa.egress.proxy;

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
 */
public final class AdminToken {

    private static final Logger LOG = Logger.getLogger(AdminToken.class.getName());
    /** Shorter tokens are refused at start: they could be guessed through the admin port. */
    static final int MIN_LENGTH = 16;

    /** Why a call was let through or not. */
    enum Check { OK, NOT_CONFIGURED, MISSING, WRONG, UNREADABLE }

    private final Path file;

    private AdminToken(Path file) {
        this.file = file;
    }

    /**
     * @param file {@code admin.token_file}, or {@code null}: every state-changing call is then refused
     * @throws IOException naming {@code admin.token_file} when the file cannot be read or holds too short a token
     */
    static AdminToken load(Path file) throws IOException {
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

    /** Checks an {@code Authorization} header value ({@code Bearer <token>}), or {@code null}. */
    Check check(String authorization) {
        if (file == null) {
            return Check.NOT_CONFIGURED;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Check.MISSING;
        }
        byte[] expected;
        try {
            expected = digest(read(file));
        } catch (IOException e) {
            LOG.warning("admin.token_file cannot be read now (" + e.getMessage() + "); state-changing admin calls are refused");
            return Check.UNREADABLE;
        }
        byte[] given = digest(authorization.substring(7).strip());
        return MessageDigest.isEqual(expected, given) ? Check.OK : Check.WRONG;
    }

    private static String read(Path file) throws IOException {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IOException("admin.token_file " + file + " cannot be read: " + e.getClass().getSimpleName(), e);
        }
        if (token.length() < MIN_LENGTH || token.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) {
            throw new IOException("admin.token_file " + file + " must hold one token of at least " + MIN_LENGTH
                    + " characters without spaces (e.g. openssl rand -hex 32)");
        }
        return token;
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
