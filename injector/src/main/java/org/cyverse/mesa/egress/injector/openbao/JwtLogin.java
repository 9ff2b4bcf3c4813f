package org.cyverse.mesa.egress.injector.openbao;

import java.nio.file.Path;

/**
 * Methods {@code kubernetes} and {@code jwt}: POST {@code auth/<mount>/login} with the role and
 * the JWT in {@code jwt_file}. The file is read again at every login: the kubelet rotates a
 * projected ServiceAccount token well before it expires, and a JWT read once would go stale.
 */
final class JwtLogin implements LoginMethod {

    private final OpenBaoClient client;
    private final OpenBaoSettings settings;

    JwtLogin(OpenBaoClient client, OpenBaoSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    @Override
    public AuthToken login() throws OpenBaoException {
        Path file = settings.jwtFile();
        return client.login(TokenFiles.read(file, "JWT file"));
    }

    @Override
    public boolean canLogInAgain(AuthToken current) {
        return true;
    }

    @Override
    public String describe() {
        return settings.method().configName() + " login at auth/" + settings.mount() + " (role " + settings.role() + ")";
    }
}
