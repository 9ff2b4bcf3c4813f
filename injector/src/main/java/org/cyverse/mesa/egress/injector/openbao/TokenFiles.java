package org.cyverse.mesa.egress.injector.openbao;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads the JWT, token and wrapped-token files: trimmed text, problems named by file, never by content. */
final class TokenFiles {

    /** Status of an {@link OpenBaoException} for a local problem (a file), not an OpenBao answer. */
    static final int LOCAL = -1;

    private static final int MAX_BYTES = 64 * 1024;

    private TokenFiles() {}

    static String read(Path file, String kind) throws OpenBaoException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new OpenBaoException(kind + " " + file + " does not exist", LOCAL);
        } catch (AccessDeniedException e) {
            throw new OpenBaoException(kind + " " + file + " is not readable (permission denied)", LOCAL);
        } catch (IOException e) {
            throw new OpenBaoException(kind + " " + file + " cannot be read (" + e.getClass().getSimpleName() + ")", LOCAL);
        }
        if (bytes.length > MAX_BYTES) {
            throw new OpenBaoException(kind + " " + file + " is larger than 64 KiB", LOCAL);
        }
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            throw new OpenBaoException(kind + " " + file + " is empty", LOCAL);
        }
        if (text.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
            // A token goes into a header; whitespace or a line break inside is a broken file.
            throw new OpenBaoException(kind + " " + file + " holds whitespace or control characters inside the value", LOCAL);
        }
        return text;
    }
}
