package org.cyverse.mesa.egress.injector.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The body scan: each spelling a client may give a value, found whole and split at every byte. */
class BodyScannerTest {

    private static final String SECRET = "sk-live-4f9a/c2E+0b7d=91Qx";
    private static final String SENTINEL = "sk-ant-sentinel";

    private static ScanPlan plan() {
        return new ScanPlan.Builder()
                .add("anthropic", Finding.Kind.SECRET, SECRET)
                .add("github", Finding.Kind.SENTINEL, SENTINEL)
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            raw in JSON                     | {"key":"sk-live-4f9a/c2E+0b7d=91Qx"}                       | anthropic | SECRET   | as is  |
            JSON-escaped slash              | {"key":"sk-live-4f9a\\/c2E+0b7d=91Qx"}                     | anthropic | SECRET   | as is  | JSON-unescaped
            JSON unicode escapes            | {"key":"\\u0073k-live-4f9a\\u002Fc2E\\u002b0b7d=91Qx"}     | anthropic | SECRET   | as is  | JSON-unescaped
            percent-encoded form field      | key=sk-live-4f9a%2Fc2E%2B0b7d%3D91Qx&x=1                   | anthropic | SECRET   | as is  | percent-decoded
            percent-encoded lowercase hex   | key=sk%2dlive%2d4f9a%2fc2E%2b0b7d%3d91Qx                   | anthropic | SECRET   | as is  | percent-decoded
            line-wrapped                    | -----BEGIN-----\\r\\nsk-live-4f9a/c2E+\\r\\n0b7d=91Qx\\r\\n | anthropic | SECRET   | as is  | line breaks removed
            sentinel in a chat message      | {"messages":[{"content":"my key is sk-ant-sentinel"}]}    | github    | SENTINEL | as is  |
            sentinel percent-encoded        | q=sk%2Dant%2Dsentinel                                      | github    | SENTINEL | as is  | percent-decoded
            """)
    void findsEachSpelling(String name, String body, String credential, Finding.Kind kind, String form, String view) {
        assertFoundSplitAnywhere(plan(), name, unescapeCsv(body).getBytes(StandardCharsets.UTF_8), credential, kind, form, view);
    }

    /** The encodings a second security review sent past the scan (issue 40): each was not found before. */
    static Stream<Arguments> encodingsTheReviewUsed() {
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        String hex = HexFormat.of().formatHex(("id:" + SECRET).getBytes(StandardCharsets.UTF_8));
        String json = "{\"config\":{\"key\":\"" + SECRET + "\"}}";
        StringBuilder decimal = new StringBuilder();
        StringBuilder hexRefs = new StringBuilder();
        StringBuilder bare = new StringBuilder();
        for (byte b : secret) {
            decimal.append("&#").append(b).append(';');
            hexRefs.append("&#x").append(Integer.toHexString(b).toUpperCase(Locale.ROOT)).append(';');
            bare.append("&#").append(b);
        }
        return Stream.of(
                Arguments.of("hex, lowercase", ("{\"dump\":\"" + hex + "\"}").getBytes(StandardCharsets.US_ASCII), "hex", ""),
                Arguments.of("hex, uppercase", hex.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII), "hex", ""),
                Arguments.of("UTF-16LE JSON", json.getBytes(StandardCharsets.UTF_16LE), "UTF-16", ""),
                Arguments.of("UTF-16BE JSON with a byte order mark", json.getBytes(StandardCharsets.UTF_16), "UTF-16", ""),
                Arguments.of("double percent-encoding", ("k=" + percent(percent(SECRET))).getBytes(StandardCharsets.US_ASCII),
                        "as is", "percent-decoded twice"),
                Arguments.of("quoted-printable, a soft line break inside the value",
                        "Content-Transfer-Encoding: quoted-printable\r\n\r\nkey: sk-live-4f9a/c2E+0b=\r\n7d=3D91Qx\r\n"
                                .getBytes(StandardCharsets.US_ASCII), "as is", "quoted-printable decoded"),
                Arguments.of("quoted-printable, a soft line break with a bare LF, lowercase hex",
                        "key: sk-li=\nve-4f9a=2fc2E+0b7d=3d91Qx".getBytes(StandardCharsets.US_ASCII), "as is", "quoted-printable decoded"),
                Arguments.of("HTML decimal references", ("<p>" + decimal + "</p>").getBytes(StandardCharsets.US_ASCII),
                        "as is", "HTML references decoded"),
                Arguments.of("HTML hexadecimal references", ("<p>" + hexRefs + "</p>").getBytes(StandardCharsets.US_ASCII),
                        "as is", "HTML references decoded"),
                Arguments.of("HTML references without semicolons", ("<p>" + bare + " </p>").getBytes(StandardCharsets.US_ASCII),
                        "as is", "HTML references decoded"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("encodingsTheReviewUsed")
    void findsTheEncodingsTheReviewUsed(String name, byte[] body, String form, String view) {
        assertFoundSplitAnywhere(plan(), name, body, "anthropic", Finding.Kind.SECRET, form, view);
    }

    @Test
    void namedHtmlReferencesAreDecoded() {
        String secret = "p&ss\"w<rd>'Zq8x0vR2mYt6";
        ScanPlan plan = new ScanPlan.Builder().add("db", Finding.Kind.SECRET, secret).build();
        byte[] body = "<input value=\"p&amp;ss&quot;w&lt;rd&gt;&apos;Zq8x0vR2mYt6\">".getBytes(StandardCharsets.US_ASCII);
        assertFoundSplitAnywhere(plan, "named references", body, "db", Finding.Kind.SECRET, "as is", "HTML references decoded");
    }

    /** {@code text} with every byte percent-encoded, as an encoder that escapes everything writes it. */
    private static String percent(String text) {
        StringBuilder sb = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            sb.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
        }
        return sb.toString();
    }

    private static void assertFoundSplitAnywhere(ScanPlan plan, String name, byte[] bytes, String credential, Finding.Kind kind,
            String form, String view) {
        for (int split = 0; split <= bytes.length; split++) {
            BodyScanner scanner = plan.newScanner();
            BodyScanner.Hit hit = scanner.feed(bytes, 0, split);
            if (hit == null) {
                hit = scanner.feed(bytes, split, bytes.length - split);
            }
            if (hit == null) {
                hit = scanner.finish();
            }
            assertNotNull(hit, name + " split at " + split);
            assertEquals(credential, hit.finding().credential());
            assertEquals(kind, hit.finding().kind());
            assertEquals(form, hit.finding().form());
            assertEquals(view == null ? "" : view, hit.view(), name + " split at " + split);
        }
    }

    @ParameterizedTest(name = "base64 at offset {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void findsTheValueInsideLongerBase64InEitherAlphabet(int offset) {
        byte[] prefix = "user:".repeat(3).substring(0, offset).getBytes(StandardCharsets.UTF_8);
        byte[] inner = (new String(prefix, StandardCharsets.UTF_8) + SECRET + "@trailing").getBytes(StandardCharsets.UTF_8);
        for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder(), Base64.getMimeEncoder())) {
            byte[] body = ("{\"basic\":\"" + encoder.encodeToString(inner) + "\"}").getBytes(StandardCharsets.UTF_8);
            BodyScanner.Hit hit = byteByByte(plan().newScanner(), body);
            assertNotNull(hit, "offset " + offset + " " + encoder);
            assertEquals("base64", hit.finding().form());
        }
    }

    @Test
    void aCleanBodyPassesWhateverItsSize() {
        Random random = new Random(42);
        byte[] noise = new byte[4 << 20];
        random.nextBytes(noise);
        BodyScanner scanner = plan().newScanner();
        for (int off = 0; off < noise.length; off += 65536) {
            assertNull(scanner.feed(noise, off, 65536));
        }
        assertNull(scanner.finish());
        assertEquals(noise.length, scanner.scanned());
        // Text full of the views' special bytes, escapes and near misses.
        String text = "{\"a\":\"50%% off\\n\\u00e9\\ud83d\\ude00 sk-live-4f9a/c2E+0b7d=91Q\", \"b\":\"%zz%4%25%2\", \"c\":\"sk-ant-sentine\\\\l\"}\r\n"
                + "a=b&c=d&#;&#x;&#xzz&amp &lt=3D=\r\n==&&#1114112;&#99999999999;&unknown;sk-live-4f9a/c2E+0b7d=3D91Q=\r\n";
        assertNull(byteByByte(plan().newScanner(), text.repeat(100).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aNeedleAtTheVeryEndIsFoundOnFinish() {
        byte[] body = "x=sk-ant-sentine%6C".getBytes(StandardCharsets.US_ASCII);
        BodyScanner scanner = plan().newScanner();
        assertNotNull(scanner.feed(body, 0, body.length));
        byte[] dangling = "x=%".getBytes(StandardCharsets.US_ASCII);
        BodyScanner other = plan().newScanner();
        assertNull(other.feed(dangling, 0, dangling.length));
        assertNull(other.finish());
    }

    @Test
    void manyNeedlesAreFoundInOnePass() {
        ScanPlan.Builder builder = new ScanPlan.Builder();
        List<String> secrets = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String secret = "sk-proj-" + Integer.toHexString(i * 7919) + "-Zq8x0vR2mYt6wP4kLs";
            secrets.add(secret);
            builder.add("c" + i, Finding.Kind.SECRET, secret);
        }
        ScanPlan plan = builder.build();
        assertTrue(plan.needles() > 50 * 3, "raw and base64 spellings");
        for (int i = 0; i < 50; i += 7) {
            byte[] body = ("{\"prompt\":\"...\",\"k\":\"" + secrets.get(i) + "\"}").getBytes(StandardCharsets.UTF_8);
            BodyScanner.Hit hit = byteByByte(plan.newScanner(), body);
            assertNotNull(hit);
            assertEquals("c" + i, hit.finding().credential());
        }
    }

    @Test
    void aHitDescribesWhereNeverWhat() {
        byte[] body = ("k=" + SECRET.replace("/", "%2F")).getBytes(StandardCharsets.UTF_8);
        BodyScanner.Hit hit = byteByByte(plan().newScanner(), body);
        assertEquals("the request body (percent-decoded)", hit.describe());
        assertTrue(!hit.toString().contains(SECRET) && !hit.describe().contains(SECRET));
    }

    private static BodyScanner.Hit byteByByte(BodyScanner scanner, byte[] body) {
        for (int i = 0; i < body.length; i++) {
            BodyScanner.Hit hit = scanner.feed(body, i, 1);
            if (hit != null) {
                return hit;
            }
        }
        return scanner.finish();
    }

    /** The table writes CR and LF as \r and \n (and a backslash as \\). */
    private static String unescapeCsv(String s) {
        return s.replace("\\r", "\r").replace("\\n", "\n").replace("\\\\", "\\");
    }
}
