package org.cyverse.mesa.egress.injector.github;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The answer to a refused push, in the protocol git reads (pack-protocol.txt, "Report Status";
 * protocol-capabilities.txt, "side-band, side-band-64k"): {@code unpack ok}, then {@code ng <ref>
 * <reason>} for every ref of the push, inside band 1 when the client asked for a side-band, with
 * the reason also on band 2, which git prints as {@code remote: ...}. git then shows each ref as
 * {@code ! [remote rejected] ... (<reason>)} and exits non-zero; nothing reached the upstream.
 */
public final class ReceivePackReport {

    /** The media type of a receive-pack answer (http-protocol.txt, "Smart Service git-receive-pack"). */
    public static final String CONTENT_TYPE = "application/x-git-receive-pack-result";
    /** A band packet carries at most this much in side-band (1000) and side-band-64k (65520), less the length and band byte. */
    private static final int SMALL_BAND = 1000 - 5;
    private static final int LARGE_BAND = 65520 - 5;

    private ReceivePackReport() {}

    /**
     * @param reasons every ref of the push with why it is refused, in the push's order
     * @param message the line git prints as {@code remote: ...} when the client reads a side-band
     * @param capabilities what the client's first command asked for
     * @return the body, or {@code null} when the client asked for no report (it then reads only the HTTP status)
     */
    public static byte[] refused(Map<String, String> reasons, String message, List<String> capabilities) {
        if (!capabilities.contains("report-status") && !capabilities.contains("report-status-v2")) {
            return null;
        }
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        pkt(report, "unpack ok\n");
        reasons.forEach((ref, why) -> pkt(report, "ng " + ref + " " + oneLine(why) + "\n"));
        report.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
        int band = capabilities.contains("side-band-64k") ? LARGE_BAND : capabilities.contains("side-band") ? SMALL_BAND : 0;
        if (band == 0) {
            return report.toByteArray();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        bands(out, 2, (oneLine(message) + "\n").getBytes(StandardCharsets.UTF_8), band);
        bands(out, 1, report.toByteArray(), band);
        out.writeBytes("0000".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static void bands(ByteArrayOutputStream out, int channel, byte[] data, int max) {
        for (int at = 0; at < data.length; at += max) {
            int n = Math.min(max, data.length - at);
            out.writeBytes(String.format("%04x", n + 5).getBytes(StandardCharsets.US_ASCII));
            out.write(channel);
            out.write(data, at, n);
        }
    }

    private static void pkt(ByteArrayOutputStream out, String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(String.format("%04x", bytes.length + 4).getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(bytes);
    }

    /** Printable, one line, not too long for a terminal: what git shows is read by a person. */
    private static String oneLine(String text) {
        String flat = text.replaceAll("[\\x00-\\x1f\\x7f]", " ");
        return flat.length() <= 300 ? flat : flat.substring(0, 297) + "...";
    }
}
