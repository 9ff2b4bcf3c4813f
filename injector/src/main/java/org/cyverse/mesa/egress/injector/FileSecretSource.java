package org.cyverse.mesa.egress.injector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Secrets in files (scheme {@code file}, SPEC.md "Secret references"): {@code file:PATH} is the
 * whole file, trimmed, as a Kubernetes Secret volume mounts one key per file;
 * {@code file:PATH#KEY} is top-level key KEY of a YAML or JSON map in PATH.
 *
 * <p>{@link #changed} notices a rewrite by modification time and by content: Kubernetes updates a
 * Secret volume by swapping a symlink, which changes the time seen through the link, and a
 * rewrite within the file system's time granularity still changes the content digest. The
 * lease's {@code version} is a keyed digest of the file, so it can be logged without revealing
 * anything about the value.
 *
 * <p>Messages name the file and the key, never a value: a YAML parser's own message may quote
 * the offending text, so it is never passed on.
 */
public final class FileSecretSource implements SecretSource {

    /** A secret file larger than this is refused: it is surely not a secret, and it would be read every second. */
    static final int MAX_BYTES = 1 << 20;

    /** Modification time of each file when it was last fetched. */
    private final Map<Path, FileTime> fetchedTimes = new ConcurrentHashMap<>();

    /** A source for {@code file:} references; paths are taken as written (relative ones against the working directory). */
    public FileSecretSource() {}

    @Override
    public String scheme() {
        return "file";
    }

    @Override
    public SecretLease fetch(SecretRef ref) throws SecretUnavailableException {
        return fetch(ref, Map.of());
    }

    /** Parts in {@code ref}'s own file come from the same read of it: a rewrite in between cannot mix two key pairs. */
    @Override
    public SecretLease fetch(SecretRef ref, Map<String, SecretRef> parts) throws SecretUnavailableException {
        Path path = path(ref);
        // The time before the content: a rewrite between the two reads then shows up as a change.
        FileTime time = modified(path);
        byte[] bytes = read(path);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new SecretUnavailableException("secret file " + path + " is not UTF-8 text");
        }
        String version = KeyedDigest.hex16(bytes);
        Secret value = value(text, ref, path);
        Map<String, SecretLease> read = new LinkedHashMap<>();
        for (Map.Entry<String, SecretRef> p : parts.entrySet()) {
            SecretRef part = p.getValue();
            read.put(p.getKey(), part.location().equals(ref.location())
                    ? new SecretLease(value(text, part, path), null, version) : fetch(part, Map.of()));
        }
        fetchedTimes.put(path, time);
        return new SecretLease(value, null, version).with(read);
    }

    private static Secret value(String text, SecretRef ref, Path path) throws SecretUnavailableException {
        String value = ref.key() == null ? text.strip() : SecretFileMap.value(text, ref.key(), path);
        if (value.isEmpty()) {
            throw new SecretUnavailableException(ref.key() == null
                    ? "secret file " + path + " is empty"
                    : "key \"" + ref.key() + "\" in secret file " + path + " is empty");
        }
        return Secret.of(value);
    }

    @Override
    public boolean changed(SecretRef ref, SecretLease lease) {
        try {
            Path path = path(ref);
            if (!modified(path).equals(fetchedTimes.get(path))) {
                return true;
            }
            return !KeyedDigest.hex16(read(path)).equals(lease.version());
        } catch (SecretUnavailableException e) {
            // Gone or unreadable: let the store fetch and report why (it keeps a still-valid value).
            return true;
        }
    }

    private static Path path(SecretRef ref) throws SecretUnavailableException {
        try {
            return Path.of(ref.location());
        } catch (InvalidPathException e) {
            throw new SecretUnavailableException("secret file \"" + ref.location() + "\" is not a valid path");
        }
    }

    private static FileTime modified(Path path) throws SecretUnavailableException {
        try {
            return Files.getLastModifiedTime(path);
        } catch (IOException e) {
            throw unreadable(path, e);
        }
    }

    private static byte[] read(Path path) throws SecretUnavailableException {
        try (InputStream in = Files.newInputStream(path)) {
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                throw new SecretUnavailableException("secret file " + path + " is larger than " + (MAX_BYTES >> 20) + " MiB");
            }
            return bytes;
        } catch (IOException e) {
            throw unreadable(path, e);
        }
    }

    private static SecretUnavailableException unreadable(Path path, IOException e) {
        // IOException messages from the file system name the path, not the content; the class
        // name is enough to tell "missing" from "forbidden".
        if (e instanceof NoSuchFileException) {
            return new SecretUnavailableException("secret file " + path + " does not exist", false, e);
        }
        if (e instanceof AccessDeniedException) {
            return new SecretUnavailableException("secret file " + path + " is not readable (permission denied)", false, e);
        }
        return new SecretUnavailableException("secret file " + path + " cannot be read (" + e.getClass().getSimpleName() + ")", false, e);
    }
}
