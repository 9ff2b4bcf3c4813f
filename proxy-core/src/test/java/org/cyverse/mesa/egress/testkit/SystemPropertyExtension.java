package org.cyverse.mesa.egress.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Sets a system property for a whole test class, before any of its {@code @BeforeAll} methods
 * (those of superclasses included), and restores it after the class. Register it on a static
 * field with {@code @RegisterExtension}.
 */
public final class SystemPropertyExtension implements BeforeAllCallback, AfterAllCallback {

    private final String key;
    private final String value;
    private String before;

    public SystemPropertyExtension(String key, String value) {
        this.key = key;
        this.value = value;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        before = System.getProperty(key);
        System.setProperty(key, value);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (before == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, before);
        }
    }
}
