package org.cyverse.mesa.egress.injector.openbao;

/**
 * Method {@code token}: the token an OpenBao Agent sink (or the launcher) writes to
 * {@code token_file}. Its lifetime comes from {@code auth/token/lookup-self}; the file is read
 * again on every use, so a token the agent replaced is picked up at the next fetch.
 */
final class TokenFileLogin implements LoginMethod {

    private final OpenBaoClient client;
    private final OpenBaoSettings settings;

    TokenFileLogin(OpenBaoClient client, OpenBaoSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    @Override
    public AuthToken login() throws OpenBaoException {
        return client.lookupSelf(TokenFiles.read(settings.tokenFile(), "token file"));
    }

    @Override
    public boolean stillCurrent(AuthToken current) {
        try {
            return TokenFiles.read(settings.tokenFile(), "token file").equals(current.value());
        } catch (OpenBaoException e) {
            return true; // unreadable for a moment (being rewritten): keep the token we have
        }
    }

    @Override
    public boolean canLogInAgain(AuthToken current) {
        return !stillCurrent(current);
    }

    @Override
    public String describe() {
        return "token from " + settings.tokenFile();
    }
}
