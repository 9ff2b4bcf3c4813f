package org.cyverse.mesa.egress.injector;

import java.util.Map;

/**
 * Replaces byte patterns in a stream that arrives in chunks, including a pattern split across
 * chunks, holding back at most (longest pattern - 1) bytes. Not thread-safe: one per stream.
 */
public final class StreamReplacer {

    /** @param replacements pattern to replacement; patterns non-empty */
    public StreamReplacer(Map<byte[], byte[]> replacements) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Whether there is nothing to replace (the proxy can then pass bytes through untouched). */
    public boolean isEmpty() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Feeds {@code len} bytes; returns the bytes that are final now (possibly none). */
    public byte[] feed(byte[] chunk, int off, int len) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Ends the stream; returns the bytes held back. */
    public byte[] finish() {
        throw new UnsupportedOperationException("TODO");
    }
}
