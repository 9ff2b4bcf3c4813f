package org.cyverse.mesa.egress.injector.sigv4;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Chunk signatures re-signed in the real key's chain, held to AWS's chunked-upload example. */
class ChunkResignerTest {

    static final String SCOPE = "20130524/us-east-1/s3/aws4_request";
    static final String DATE = "20130524T000000Z";
    static final String SEED = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
    static final byte[] KEY = SigV4Signer.signingKey(SigV4StepTest.S3_SECRET, "20130524", "us-east-1", "s3");

    /** The example's body: 65,536 and 1,024 bytes of 'a', then the last chunk, with AWS's signatures. */
    static byte[] example() {
        return ("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n" + "a".repeat(65536)
                + "\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n" + "a".repeat(1024)
                + "\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] run(ChunkResigner r, byte[] body, int piece) throws ChunkResigner.ChunkException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += piece) {
            out.writeBytes(r.feed(body, i, Math.min(piece, body.length - i)));
        }
        r.finish();
        return out.toByteArray();
    }

    @Test
    void theExampleReSignedWithItsOwnKeyAndSeedIsItself() throws Exception {
        for (int piece : new int[] {1, 100, 65536, 1 << 20}) {
            ChunkResigner r = new ChunkResigner(new ChunkResigner.Chain(KEY, DATE, SCOPE, SEED), new ChunkResigner.Chain(KEY, DATE, SCOPE, SEED),
                    1 << 20);
            assertArrayEquals(example(), run(r, example(), piece), "pieces of " + piece);
        }
    }

    @Test
    void reSignedWithAnotherKeyTheChainIsThatKeysAndTheFramingKeepsItsLength() throws Exception {
        byte[] realKey = SigV4Signer.signingKey(SigV4StepTest.REAL_SECRET, "20261202", "us-east-1", "s3");
        String realScope = "20261202/us-east-1/s3/aws4_request";
        String realSeed = "1".repeat(64);
        byte[] out = run(new ChunkResigner(new ChunkResigner.Chain(KEY, DATE, SCOPE, SEED),
                new ChunkResigner.Chain(realKey, "20261202T110000Z", realScope, realSeed), 1 << 20), example(), 8192);
        assertEquals(example().length, out.length);
        // What the upstream does: check the chain with the real key.
        byte[] again = run(new ChunkResigner(new ChunkResigner.Chain(realKey, "20261202T110000Z", realScope, realSeed),
                new ChunkResigner.Chain(realKey, "20261202T110000Z", realScope, realSeed), 1 << 20), out, 4096);
        assertArrayEquals(out, again);
        assertTrue(!new String(out, StandardCharsets.US_ASCII).contains("ad80c730a21e5b8d"), "the sentinel chain's signatures are gone");
    }

    @Test
    void aChangedChunkAWrongSeedOrLyingFramingIsRefused() {
        byte[] changed = example();
        changed[66000] = (byte) 0x62;
        assertThrows(ChunkResigner.ChunkException.class, () -> run(resigner(SEED), changed, 4096), "a byte changed");
        assertThrows(ChunkResigner.ChunkException.class, () -> run(resigner("2".repeat(64)), example(), 4096), "another seed");
        byte[] cut = java.util.Arrays.copyOf(example(), 66000);
        assertThrows(ChunkResigner.ChunkException.class, () -> run(resigner(SEED), cut, 4096), "cut short");
        byte[] big = example();
        assertThrows(ChunkResigner.ChunkException.class, () -> run(new ChunkResigner(new ChunkResigner.Chain(KEY, DATE, SCOPE, SEED),
                new ChunkResigner.Chain(KEY, DATE, SCOPE, SEED), 4096), big, 4096), "a chunk over the bound");
        byte[] lying = ("5;chunk-signature=" + "0".repeat(64) + "\r\nabcdefgh\r\n").getBytes(StandardCharsets.US_ASCII);
        assertThrows(ChunkResigner.ChunkException.class, () -> run(resigner(SEED), lying, 4096), "a size that lies");
    }

    private static ChunkResigner resigner(String seed) {
        return new ChunkResigner(new ChunkResigner.Chain(KEY, DATE, SCOPE, seed), new ChunkResigner.Chain(KEY, DATE, SCOPE, seed), 1 << 20);
    }
}
