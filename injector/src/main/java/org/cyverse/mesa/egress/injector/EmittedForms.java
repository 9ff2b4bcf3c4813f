package org.cyverse.mesa.egress.injector;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Basic credentials the proxy wrote with a secret inside ({@code base64(user:secret)}, as git
 * sends {@code x-access-token:TOKEN}), each with the credentials the client had sent (the same
 * user, the sentinel): the base64 text depends on the user name, so it cannot be derived from the
 * secret alone, and an upstream that echoes the request hands it back. The most recent
 * {@value #CAPACITY} are kept (a job uses one or two user names); thread-safe.
 */
final class EmittedForms {

    static final int CAPACITY = 64;

    private final Map<String, String> forms = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > CAPACITY;
        }
    };
    private long version;

    /**
     * Notes a header value the proxy rewrote: when both are Basic credentials, the written base64
     * text stands for the sent one from now on.
     */
    void rewritten(String sent, String written) {
        String from = BasicCredentials.token(written);
        String to = BasicCredentials.token(sent);
        if (from == null || to == null || from.equals(to)) {
            return;
        }
        synchronized (this) {
            if (!to.equals(forms.get(from))) {
                forms.put(from, to);
                version++;
            }
        }
    }

    /** Changes whenever a form is added (or one falls out). */
    synchronized long version() {
        return version;
    }

    /** Written base64 text to the client's, most recent last. */
    synchronized Map<String, String> snapshot() {
        return Map.copyOf(forms);
    }
}
