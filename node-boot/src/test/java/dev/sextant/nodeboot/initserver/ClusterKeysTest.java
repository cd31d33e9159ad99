package dev.sextant.nodeboot.initserver;

import dev.sextant.keys.KeyDerivation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class ClusterKeysTest {
    @Test
    @DisplayName("the init node derives the group key the join service hands out: the KMS data key 'discoveryKey'")
    void sameKeyAsTheJoinService() {
        byte[] master = new byte[32];
        byte[] salt = new byte[16];
        master[0] = 7;
        assertArrayEquals(new KeyDerivation(master, salt).dataKey("discoveryKey", 32),
                new ClusterKeys(master, salt).discoveryKey());
    }
}
