package org.cyverse.mesa.egress.injector;

import java.net.http.HttpClient;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * JDK HTTP clients for the services the proxy itself calls with a secret (LiteLLM's admin API with
 * the master key, the approval inbox's webhook with its signature): never a redirect, which would
 * carry the secret to another host; never a proxy of the environment; the proxy's own trust.
 */
public final class ServiceClients {

    private ServiceClients() {}

    /** A builder with those settings; the caller may add more (a protocol version) and builds it. */
    public static HttpClient.Builder builder(SSLContext tls, Duration connectTimeout) {
        return HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .proxy(HttpClient.Builder.NO_PROXY)
                .sslContext(tls)
                .connectTimeout(connectTimeout);
    }
}
