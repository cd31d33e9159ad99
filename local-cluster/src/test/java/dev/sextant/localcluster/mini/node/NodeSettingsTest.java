package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The settings a mini node boots with")
class NodeSettingsTest {
    private final byte[] salt = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
    private final byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
    private static final String EK_CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    private final PortPlan ports = PortPlan.pick(threeControlPlanesAndAWorker(),
            IntStream.iterate(40000, p -> p + 1).iterator()::nextInt);

    private static Map<String, NodeRole> threeControlPlanesAndAWorker() {
        Map<String, NodeRole> nodes = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            nodes.put(NodeRole.CONTROL_PLANE.nodeName(i), NodeRole.CONTROL_PLANE);
        }
        nodes.put("worker-0", NodeRole.WORKER);
        return nodes;
    }

    @Test
    @DisplayName("give the init node its name, the init secret's salted hash (never the secret), its etcd member's"
            + " forwards and heartbeat, the EK CA and its data volume's zone, and no join service: it joins nothing")
    void initNode() throws Exception {
        Map<String, String> settings = NodeSettings.initNode("control-plane-0", secret, salt, EK_CA, ports);
        assertEquals(List.of("sextant.node-name", "sextant.init-secret-hash", "sextant.etcd-advertise", "sextant.ek-ca",
                "sextant.verify-advertise", "sextant.data-volume-zone", "sextant.etcd-heartbeat-ms"),
                List.copyOf(settings.keySet()));
        assertEquals("z1", settings.get("sextant.data-volume-zone"));
        assertEquals("500", settings.get("sextant.etcd-heartbeat-ms"));
        assertEquals("10.0.2.2:40000", settings.get("sextant.verify-advertise"));
        assertEquals(EK_CA, settings.get("sextant.ek-ca"));
        assertEquals("control-plane-0", settings.get("sextant.node-name"));
        assertEquals("10.0.2.2:40006:40005", settings.get("sextant.etcd-advertise"));
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update(salt);
        String digest = HexFormat.of().formatHex(sha256.digest(secret));
        assertEquals("sha256:00112233445566778899aabbccddeeff:" + digest, settings.get("sextant.init-secret-hash"));
        assertFalse(settings.values().stream().anyMatch(v -> v.contains("s3cret")));
    }

    @Test
    @DisplayName("tell a joining control plane that it is one, every control plane's join service, where its own"
            + " etcd member is reached and its heartbeat, its data volume's zone, and no init secret")
    void joiningControlPlane() {
        assertEquals(Map.of("sextant.node-name", "control-plane-1", "sextant.control-plane", "true",
                "sextant.join-endpoints", "10.0.2.2:40002,10.0.2.2:40009,10.0.2.2:40016",
                "sextant.etcd-advertise", "10.0.2.2:40013:40012", "sextant.ek-ca", EK_CA,
                "sextant.verify-advertise", "10.0.2.2:40007", "sextant.data-volume-zone", "z1",
                "sextant.etcd-heartbeat-ms", "500"),
                NodeSettings.joiningControlPlane("control-plane-1", EK_CA, ports));
    }

    @Test
    @DisplayName("give a worker its name, every control plane's join service as the guest sees the host, and the EK CA"
            + " to verify those services with, and where re-attestation reaches it (its forward); no data volume")
    void worker() {
        assertEquals(Map.of("sextant.node-name", "worker-0",
                "sextant.join-endpoints", "10.0.2.2:40002,10.0.2.2:40009,10.0.2.2:40016",
                "sextant.ek-ca", EK_CA, "sextant.verify-advertise", "10.0.2.2:40021"), NodeSettings.worker("worker-0", EK_CA, ports));
    }
}
