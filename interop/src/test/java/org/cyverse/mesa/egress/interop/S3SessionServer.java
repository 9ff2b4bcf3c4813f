package org.cyverse.mesa.egress.interop;

import java.lang.reflect.Field;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.shaded.org.eclipse.jetty.server.Handler;
import org.gaul.shaded.org.eclipse.jetty.server.Request;
import org.gaul.shaded.org.eclipse.jetty.server.Response;
import org.gaul.shaded.org.eclipse.jetty.server.Server;
import org.gaul.shaded.org.eclipse.jetty.util.Callback;

/**
 * An S3-compatible server on loopback that accepts temporary credentials, as S3 does for keys STS
 * issued: S3Proxy (org.gaul:s3proxy 4.0.0) checks each request's SigV4 signature, chunk signatures
 * included, with the secret key of the key id it names (one per issued session, looked up per
 * request); in front of it a gate refuses, as S3 does, a request whose session token is missing,
 * is not the one issued with its key id, or (in an Authorization header) is not among the signed
 * headers. S3Proxy itself has no session tokens: it answers 501 to {@code x-amz-security-token}
 * unless told to ignore the header, and is told so here because the gate has checked it and the
 * signature covers it. A session can be revoked, as an expired STS session is refused.
 *
 * <p>The gate is put in front of S3Proxy's handler through its private Jetty {@code server}
 * field (S3Proxy offers no hook); the field name is pinned by the version in the pom, and a
 * change fails the fixture's start, not a test's assertion.
 */
final class S3SessionServer implements AutoCloseable {

    /** Temporary credentials as STS issues them. */
    record Session(String accessKeyId, String secretAccessKey, String sessionToken) {}

    private static final Pattern HEADER_CREDENTIAL = Pattern.compile("Credential=([A-Za-z0-9]+)/");
    private static final Pattern SIGNED_HEADERS = Pattern.compile("SignedHeaders=([a-z0-9;-]+)");

    private final S3Proxy server;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    /** The key id of every request the gate let through to S3Proxy, in order. */
    final List<String> admitted = new CopyOnWriteArrayList<>();
    /** Why the gate refused each request it refused. */
    final List<String> refused = new CopyOnWriteArrayList<>();

    S3SessionServer(SSLContext tls, Path store) throws Exception {
        FilesystemNio2BlobStore blobs = new FilesystemNio2BlobStore(store.toString());
        // Any identity for the builder (it wants one to turn authentication on); the locator below decides per request.
        server = S3Proxy.builder().blobStore(blobs)
                .awsAuthentication(org.gaul.s3proxy.AuthenticationType.AWS_V4, "ASIAUNUSEDBUILDERKEY", "unused-builder-secret")
                .ignoreUnknownHeaders(true)
                .endpoint(URI.create("http://127.0.0.1:0")).secureEndpoint(URI.create("https://127.0.0.1:0")).sslContext(tls).build();
        server.setBlobStoreLocator((identity, container, blob) -> {
            Session s = identity == null ? null : sessions.get(identity);
            return s == null ? null : new AccessGrant(s.secretAccessKey(), blobs);
        });
        Field jettyField = S3Proxy.class.getDeclaredField("server");
        jettyField.setAccessible(true);
        Server jetty = (Server) jettyField.get(server);
        jetty.setHandler(new TokenGate(jetty.getHandler()));
        S3Server.start(server);
    }

    void issue(Session session) {
        sessions.put(session.accessKeyId(), session);
    }

    void revoke(Session session) {
        sessions.remove(session.accessKeyId());
    }

    int httpsPort() {
        return server.getSecurePort();
    }

    int httpPort() {
        return server.getPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    /** S3's session token check, before S3Proxy's signature check. */
    private final class TokenGate extends Handler.Wrapper {

        TokenGate(Handler next) {
            super(next);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            Map<String, String> query = query(request.getHttpURI().getQuery());
            String authorization = request.getHeaders().get("Authorization");
            String keyId;
            String token;
            if (authorization != null) {
                Matcher m = HEADER_CREDENTIAL.matcher(authorization);
                keyId = m.find() ? m.group(1) : null;
                token = request.getHeaders().get("x-amz-security-token");
                Matcher signed = SIGNED_HEADERS.matcher(authorization);
                if (token != null && (!signed.find() || !List.of(signed.group(1).split(";")).contains("x-amz-security-token"))) {
                    return refuse(response, callback, "InvalidToken", "the session token is not a signed header");
                }
            } else if (query.containsKey("X-Amz-Credential")) {
                String credential = query.get("X-Amz-Credential");
                keyId = credential.contains("/") ? credential.substring(0, credential.indexOf('/')) : credential;
                token = query.get("X-Amz-Security-Token");
            } else {
                return super.handle(request, response, callback); // anonymous: S3Proxy refuses it
            }
            Session session = keyId == null ? null : sessions.get(keyId);
            if (session == null) {
                return refuse(response, callback, "InvalidAccessKeyId", "no session has the key id " + keyId);
            }
            if (token == null) {
                return refuse(response, callback, "InvalidToken", "a temporary key id without its session token");
            }
            if (!token.equals(session.sessionToken())) {
                return refuse(response, callback, "InvalidToken", "the session token is not the one issued with " + keyId);
            }
            admitted.add(keyId);
            return super.handle(request, response, callback);
        }

        private boolean refuse(Response response, Callback callback, String code, String why) {
            refused.add(code + ": " + why);
            response.setStatus(code.equals("InvalidAccessKeyId") ? 403 : 400);
            response.getHeaders().put("Content-Type", "application/xml");
            byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + why
                    + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
            response.write(true, ByteBuffer.wrap(body), callback);
            return true;
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new java.util.HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            out.put(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
