package org.cyverse.mesa.egress.config;

import java.nio.file.Path;
import java.util.List;

/**
 * Reads {@code admin}: either the listener's {@code host:port} alone (SPEC.md's first form), or a
 * map with {@code listen}, {@code token_file} and {@code kill_file} (the operator controls).
 */
final class AdminReader {

    static final List<String> KEYS = List.of("listen", "token_file", "kill_file");

    /**
     * @param listen the admin listener as written, or {@code null} when not given
     * @param listenKey the key it was written under ({@code admin} or {@code admin.listen}), for messages
     */
    record Result(String listen, String listenKey, int listenLine, MesaConfig.Control control) {}

    private AdminReader() {}

    static Result read(MapReader root, Path base) {
        YamlNode raw = root.raw("admin");
        if (!(raw instanceof YamlNode.MapNode)) {
            return new Result(root.string("admin"), "admin", root.lineOf("admin"), MesaConfig.Control.NONE);
        }
        MapReader admin = root.map("admin", KEYS);
        String listen = admin.string("listen");
        Path tokenFile = admin.path("token_file", base);
        Path killFile = admin.path("kill_file", base);
        if (tokenFile != null && killFile != null && tokenFile.equals(killFile)) {
            admin.problem("kill_file", "is the same file as admin.token_file: the token's presence would pull the kill switch");
        }
        return new Result(listen, "admin.listen", admin.lineOf("listen"), new MesaConfig.Control(tokenFile, killFile));
    }
}
