package io.tcpsight.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KernelVersionTest {

    @Test
    void releasesOfDistributionsParse() {
        assertEquals(
                KernelVersion.of(6, 18, 44),
                KernelVersion.parse("6.18.44-fc-v669").get());
        assertEquals(KernelVersion.of(6, 6, 0), KernelVersion.parse("6.6-rc1").get());
        assertEquals(
                KernelVersion.of(5, 15, 0),
                KernelVersion.parse("5.15.0-105-generic").get());
        assertEquals(
                KernelVersion.of(6, 1, 119),
                KernelVersion.parse(" 6.1.119+deb12\n").get());
        assertEquals(
                "6.1.119+deb12", KernelVersion.parse(" 6.1.119+deb12\n").get().release());
    }

    @Test
    void nonsenseIsEmptyNotAnException() {
        assertFalse(KernelVersion.parse("linux").isPresent());
        assertFalse(KernelVersion.parse("").isPresent());
        assertFalse(KernelVersion.parse(null).isPresent());
        assertFalse(KernelVersion.parse("99999999999.1").isPresent());
    }

    @Test
    void versionsCompareNumerically() {
        assertTrue(KernelVersion.of(6, 10, 0).compareTo(KernelVersion.of(6, 9, 12)) > 0);
        assertTrue(KernelVersion.of(6, 6, 33).isAtLeast(6, 6, 33));
        assertFalse(KernelVersion.of(6, 6, 32).isAtLeast(6, 6, 33));
    }
}
