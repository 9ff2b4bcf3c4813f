package org.cyverse.mesa.egress.injector;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under a key drawn at random when the process starts. Anything derived from a secret
 * that may be seen (a hash code in a heap dump, a file "version" in an audit record or a metric)
 * goes through it: a plain digest of a short or guessable secret could be reversed by trying
 * candidates, a keyed one cannot without the key, which never leaves the process.
 */
final class KeyedDigest {

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] KEY = new byte[32];

    static {
        new SecureRandom().nextBytes(KEY);
    }

    private KeyedDigest() {}

    static byte[] mac(byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(KEY, ALGORITHM));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            // HmacSHA256 is one of the algorithms every Java platform must provide.
            throw new IllegalStateException(ALGORITHM + " is not available", e);
        }
    }

    /** The first four bytes of the MAC, for {@code hashCode()}. */
    static int hash32(byte[] data) {
        byte[] m = mac(data);
        return (m[0] & 0xff) << 24 | (m[1] & 0xff) << 16 | (m[2] & 0xff) << 8 | m[3] & 0xff;
    }

    /** The first eight bytes of the MAC in hex: a version tag that says "changed" without saying what. */
    static String hex16(byte[] data) {
        byte[] m = mac(data);
        StringBuilder sb = new StringBuilder(16);
        for (int i = 0; i < 8; i++) {
            sb.append(Character.forDigit(m[i] >> 4 & 0xf, 16)).append(Character.forDigit(m[i] & 0xf, 16));
        }
        return sb.toString();
    }
}
