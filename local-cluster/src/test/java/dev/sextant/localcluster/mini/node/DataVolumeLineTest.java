package dev.sextant.localcluster.mini.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Console lines as control-plane-0 printed them at its first boot in a CI run (2026-11-28). */
@DisplayName("What a control plane's console says last of its etcd data volume")
class DataVolumeLineTest {
    private static final String FORMATTING = "[   79.925831] sextant-node[266]: 09:29:41.708 INFO  d.s.h.v.DataVolumeMounter"
            + " - Data volume: formatting new volume /dev/vdc1 (sx1:sextant:cp:z1:m0)";
    private static final String MOUNTED = "[   95.856610] sextant-node[266]: 09:29:57.594 INFO  d.s.h.v.DataVolumeMounter"
            + " - Data volume: member m0 (/dev/vdc1, GPT name) mounted on /var/lib/rancher/sextant/services/etcd/data";

    @Test
    @DisplayName("after formatting and mounting: the mount, behind the journal's prefixes")
    void mounted() {
        assertEquals(Optional.of("member m0 (/dev/vdc1, GPT name) mounted on /var/lib/rancher/sextant/services/etcd/data"),
                DataVolumeLine.last(List.of("[   79.1] systemd[1]: Started sextant-node.service", FORMATTING,
                        "[   96.0] sextant-node[266]: etcd started", MOUNTED, "[  120.3] sextant-node[266]: SEXTANT-STATUS")));
    }

    @Test
    @DisplayName("a node that waits for its own volume: why, as it said it last")
    void waiting() {
        String waiting = "[  80.2] sextant-node[266]: 09:29:42.000 INFO  d.s.h.v.DataVolumeMounter - Data volume: no volume"
                + " tagged for zone z1 yet; looking again at 2026-11-28T09:30:42Z";
        assertEquals(Optional.of("no volume tagged for zone z1 yet; looking again at 2026-11-28T09:30:42Z"),
                DataVolumeLine.last(List.of(FORMATTING, waiting)));
    }

    @Test
    @DisplayName("a console that never mentions a volume (a worker, or a boot not that far yet): nothing")
    void silent() {
        assertEquals(Optional.empty(), DataVolumeLine.last(List.of("[    0.0] Linux version 6.1.0", "[   2.0] systemd[1]: ok")));
    }
}
