package org.cyverse.mesa.egress.injector.github;

import java.io.ByteArrayOutputStream;

/** git's delta format (gitformat-pack.txt, "Deltified representation"): copy and insert instructions over a base. */
final class PackDelta {

    private PackDelta() {}

    /** The target, or {@code null} when the delta does not fit its base. */
    static byte[] apply(byte[] base, byte[] delta) {
        int[] at = {0};
        long source = varint(delta, at);
        long target = varint(delta, at);
        if (source != base.length || target < 0 || target > (1 << 20)) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) target);
        while (at[0] < delta.length) {
            int op = delta[at[0]++] & 0xff;
            if ((op & 0x80) != 0) {
                long off = 0;
                long len = 0;
                for (int i = 0; i < 4; i++) {
                    if ((op & (1 << i)) != 0) {
                        if (at[0] >= delta.length) {
                            return null;
                        }
                        off |= (long) (delta[at[0]++] & 0xff) << (8 * i);
                    }
                }
                for (int i = 0; i < 3; i++) {
                    if ((op & (0x10 << i)) != 0) {
                        if (at[0] >= delta.length) {
                            return null;
                        }
                        len |= (long) (delta[at[0]++] & 0xff) << (8 * i);
                    }
                }
                len = len == 0 ? 0x10000 : len;
                if (off + len > base.length) {
                    return null;
                }
                out.write(base, (int) off, (int) len);
            } else if (op != 0) {
                if (at[0] + op > delta.length) {
                    return null;
                }
                out.write(delta, at[0], op);
                at[0] += op;
            } else {
                return null;
            }
        }
        return out.size() == target ? out.toByteArray() : null;
    }

    private static long varint(byte[] b, int[] at) {
        long v = 0;
        int shift = 0;
        int c;
        do {
            if (at[0] >= b.length) {
                return -1;
            }
            c = b[at[0]++] & 0xff;
            v |= (long) (c & 0x7f) << shift;
            shift += 7;
        } while ((c & 0x80) != 0);
        return v;
    }
}
