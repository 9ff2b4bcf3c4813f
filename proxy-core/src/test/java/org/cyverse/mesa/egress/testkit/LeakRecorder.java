package org.cyverse.mesa.egress.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Fails a test class when Netty reports a leaked buffer ({@code LEAK:}) while it ran. Installed
 * before any buffer class loads (a launcher session listener, found through ServiceLoader) and
 * checked after every test class (an extension, autodetected). The build runs with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 */
public final class LeakRecorder extends ResourceLeakDetectorFactory implements LauncherSessionListener, AfterAllCallback {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        install();
    }

    static synchronized void install() {
        if (!installed) {
            installed = true;
            ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new LeakRecorder());
        }
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
        return new ResourceLeakDetector<>(resource, samplingInterval) {
            @Override
            protected boolean needReport() {
                return true;
            }

            @Override
            protected void reportTracedLeak(String resourceType, String records) {
                LEAKS.add("LEAK: " + resourceType + records);
                super.reportTracedLeak(resourceType, records);
            }

            @Override
            protected void reportUntracedLeak(String resourceType) {
                LEAKS.add("LEAK: " + resourceType + " (untraced)");
                super.reportUntracedLeak(resourceType);
            }
        };
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        // Leaks are reported when a tracked object is allocated after the leaked one was collected.
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            for (int j = 0; j < 64; j++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
                probe.release();
            }
        }
        if (!LEAKS.isEmpty()) {
            String report = String.join("\n", LEAKS);
            LEAKS.clear();
            fail("Netty reported leaked buffers in " + context.getDisplayName() + ":\n" + report);
        }
    }
}
