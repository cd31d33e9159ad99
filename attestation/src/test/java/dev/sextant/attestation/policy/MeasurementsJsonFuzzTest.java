package dev.sextant.attestation.policy;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzz target for the measurement set reader (format 2, and format 1 as one image): MeasurementsException is
 * the only allowed failure, and what it reads writes back to a set it reads again.
 */
class MeasurementsJsonFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void parse(byte[] json) {
        try {
            MeasurementSet set = MeasurementSet.parse(json);
            MeasurementSet.parse(set.toJson());
        } catch (MeasurementsException expected) {
            // declared rejection
        }
    }
}
