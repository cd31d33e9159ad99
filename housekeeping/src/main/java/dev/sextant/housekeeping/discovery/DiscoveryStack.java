package dev.sextant.housekeeping.discovery;

import org.jgroups.protocols.BARRIER;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.SERIALIZE;
import org.jgroups.protocols.TCP_NIO2;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * The JGroups stack, bottom first. Seeds replace cloud listing: TCPPING asks the configured
 * control-plane addresses (kops needed cloud read rights on every node for this). Everything above
 * TCP is sealed with the group key: SERIALIZE packs whole messages, headers included, and
 * {@link SealedEncryption} encrypts and authenticates them, so discovery, heartbeats, merges and
 * join requests from a process without the key are dropped before any protocol reads them.
 *
 * <p>The group port is the only port: failure detection is FD_ALL3's heartbeats over the sealed
 * transport, not FD_SOCK2, which listens on port + 100 outside the seal and answers strangers in
 * clear text. On a loaded machine FD_SOCK2 also suspects live members while nodes join (connection
 * attempts to a neighbour's port failing), and a short suspicion check then excludes some; each such
 * split waits a merge round to heal.
 */
final class DiscoveryStack {
    /** Builds a stack: {@link #build}, or in tests the same with protocols that drop or hold back messages. */
    interface Factory {
        List<Protocol> build(InetAddress bind, int port, List<InetSocketAddress> seeds, byte[] groupKey,
                             Duration failureTimeout);
    }

    private DiscoveryStack() {}

    static List<Protocol> build(InetAddress bind, int port, List<InetSocketAddress> seeds, byte[] groupKey,
                                Duration failureTimeout) {
        long timeout = failureTimeout.toMillis();
        // NIO transport: no sender thread per peer, so a dead peer cannot stall the others (TCP's
        // non-blocking-sends mode does the same with a thread per peer, and such a thread can spin a core).
        TCP_NIO2 tcp = new TCP_NIO2();
        tcp.setBindAddress(bind);
        tcp.setBindPort(port);
        tcp.setValue("port_range", 0);
        TCPPING ping = new TCPPING();
        ping.initialHosts(seeds);
        ping.setPortRange(0);
        // Seeds are only the control planes; answering with every member known lets MERGE3 reach
        // subgroups led by non-seed nodes (several form when many nodes start at once).
        ping.returnEntireCache(true);
        ping.sendCacheOnJoin(true);
        MERGE3 merge = new CoordinatorMerge();
        // Only coordinators run these rounds (a discovery to the seeds, one INFO per member found), so
        // at rest one member pays O(members) per round and the others nothing (CoordinatorMerge).
        // Rounds every failure timeout or two let a start-up split or a healed partition wait 30-60 s for
        // its merge; a quarter to half of it bounds that by about 10 s at the 12 s default.
        merge.setMinInterval(Math.max(1000, timeout / 4));
        merge.setMaxInterval(Math.max(2000, timeout / 2));
        FD_ALL3 heartbeats = new FD_ALL3();
        heartbeats.setTimeout(timeout);
        heartbeats.setInterval(Math.max(500, timeout / 4));
        // A suspected member gets this long to answer "are you dead?": a quarter timeout is too short
        // for a JVM starting on a busy machine, and excludes live members.
        VERIFY_SUSPECT2 verify = new VERIFY_SUSPECT2();
        verify.setTimeout(Math.max(1000, timeout / 2));
        NAKACK2 nakack = new NAKACK2();
        nakack.setValue("use_mcast_xmit", false);
        STABLE stable = new STABLE();
        stable.setDesiredAverageGossip(30_000);
        GMS gms = new GMS();
        // Also how long discovery waits for answers before this node founds a group of its own: a
        // shorter wait lets a cold JVM on a busy machine miss a running seed and start a second group.
        gms.setJoinTimeout(Math.max(3000, timeout / 2));
        gms.setValue("print_local_addr", false);
        return List.of(tcp, new SealedEncryption(groupKey), new SERIALIZE(), ping, merge, heartbeats,
                verify, new BARRIER(), nakack, new UNICAST3(), stable, gms);
    }
}
