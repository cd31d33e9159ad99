package dev.sextant.attestation.policy;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Fuzz target for the measurements JSON reader: MeasurementsException is the only allowed failure. */
class MeasurementsJsonFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void parse(byte[] json) {
        try {
            Measurements m = Measurements.parse(json);
            Measurements.parse(m.toJson());
        } catch (MeasurementsException expected) {
            // declared rejection
        }
    }
}
