package org.cyverse.mesa.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"250ms, 250", "5s, 5000", "1m, 60000", "2h, 7200000", "90s, 90000"})
    void parsesEveryUnit(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), Durations.parse(text));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"5", "5 s", "1.5s", "-1s", "5sec", "1m30s", "ms", "0s", "0ms", ""})
    void refusesWhatIsNotOneWholeNumberAndUnit(String text) {
        assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
    }
}
