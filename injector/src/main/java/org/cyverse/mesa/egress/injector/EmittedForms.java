package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** A Basic form the proxy wrote, the client's own for it, and the credential whose secret is in it. */
    record Form(String written, String sent, String credential) {}

    private final Map<String, Form> forms = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Form> eldest) {
            return size() > CAPACITY;
        }
    };
    /** Read without the lock on every scrub; written under it. */
    private volatile long version;

    /**
     * Notes a field value the proxy rewrote for {@code credential}: when both are Basic
     * credentials, the written base64 text stands for the sent one from now on.
     */
    void rewritten(String sent, String written, String credential) {
        String from = BasicCredentials.token(written);
        String to = BasicCredentials.token(sent);
        if (from == null || to == null || from.equals(to)) {
            return;
        }
        synchronized (this) {
            Form known = forms.get(from);
            if (known == null || !known.sent().equals(to)) {
                forms.put(from, new Form(from, to, credential));
                version++;
            }
        }
    }

    /** Changes whenever a form is added (or one falls out). */
    long version() {
        return version;
    }

    /** The forms noted, least recent first. */
    synchronized List<Form> snapshot() {
        return new ArrayList<>(forms.values());
    }
}
