package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The tag of a mini control plane's etcd volume")
class EtcdVolumeTagTest {
    @Test
    @DisplayName("names the node's own cluster, the datastore role, mini's zone and a short member per control plane")
    void tagOfControlPlane() {
        assertEquals("sx1:sextant:cp:z1:m0", EtcdVolumeTag.ofControlPlane(0).toString());
        assertEquals("sx1:sextant:cp:z1:m2", EtcdVolumeTag.ofControlPlane(NodeRole.CONTROL_PLANE.indexOf("control-plane-2"))
                .toString());
    }

    @Test
    @DisplayName("fits a GPT partition name (36 characters) and refuses a member that would not")
    void fitsGptName() {
        assertTrue(EtcdVolumeTag.ofControlPlane(9999).toString().length() <= EtcdVolumeTag.MAX_LENGTH);
        var e = assertThrows(IllegalArgumentException.class, () -> new EtcdVolumeTag("a-member-name-too-long-for-gpt"));
        assertTrue(e.getMessage().contains("longer than a GPT name"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new EtcdVolumeTag("M0"));
        assertThrows(IllegalArgumentException.class, () -> new EtcdVolumeTag("m0:x"));
    }

    @Test
    @DisplayName("takes the index only from a control plane's name")
    void indexFromName() {
        assertThrows(IllegalArgumentException.class, () -> NodeRole.CONTROL_PLANE.indexOf("worker-0"));
        assertThrows(IllegalArgumentException.class, () -> NodeRole.CONTROL_PLANE.indexOf("control-plane-01"));
    }
}
