package dev.sextant.nodeboot.nodelock;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class TpmPcrMarkerTest {
    @Test
    @DisplayName("taking the lock on a real swtpm leaves PCR 15 = SHA-256(0^32 || SHA-256(cluster ID)); a new lock on that TPM starts locked")
    void pcr15HoldsTheClusterIdEvent() throws Exception {
        Swtpm.assumeAvailable();
        try (Swtpm swtpm = Swtpm.start()) {
            byte[] clusterId = new byte[32];
            for (int i = 0; i < clusterId.length; i++) {
                clusterId[i] = (byte) (0xA0 + i);
            }
            new NodeLock(new TpmPcrMarker(swtpm.client())).tryLockOnce(LockHolder.INIT, clusterId);

            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(new byte[32]);
            byte[] expected = sha256.digest(MessageDigest.getInstance("SHA-256").digest(clusterId));
            assertArrayEquals(expected, swtpm.client().pcr().readAll(TpmAlg.SHA256).get(15));

            NodeLock restarted = new NodeLock(new TpmPcrMarker(swtpm.client()));
            assertEquals(LockHolder.EARLIER_RUN, restarted.holder().orElseThrow(),
                    "a restarted bootstrapper finds the mark and stays locked");
            assertFalse(restarted.tryLockOnce(LockHolder.JOIN, clusterId).won());
        }
    }
}
