package org.cyverse.mesa.egress.interop;

import java.net.URI;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3-compatible server on loopback that checks signatures: S3Proxy (org.gaul:s3proxy)
 * over a store in a directory (objects on disk: a large upload holds no memory there), accepting one key pair with AWS Signature Version 4 (header,
 * presigned and aws-chunked, chunk signatures included since S3Proxy 3.2.0). HTTPS with the
 * test CA's certificate for {@code localhost}; plain http too, on a second port.
 */
final class S3Server implements AutoCloseable {

    static final String ACCESS_KEY_ID = "AKIAMESAREALKEY00001";
    static final String SECRET_ACCESS_KEY = "mesaRealSecretAccessKey/0123456789abcdefgh";

    private final S3Proxy server;

    S3Server(SSLContext tls, Path store) throws Exception {
        server = S3Proxy.builder().blobStore(new FilesystemNio2BlobStore(store.toString()))
                .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY_ID, SECRET_ACCESS_KEY)
                .endpoint(URI.create("http://127.0.0.1:0")).secureEndpoint(URI.create("https://127.0.0.1:0")).sslContext(tls)
                .build();
        start(server);
    }

    /** Starts {@code server} and waits (at most 20 s) until S3Proxy says it has started. */
    static void start(S3Proxy server) throws Exception {
        server.start();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!server.getState().equals("STARTED")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not start: " + server.getState());
            }
            Thread.sleep(20);
        }
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
}
