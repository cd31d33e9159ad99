package dev.sextant.housekeeping.discovery;

import org.jgroups.protocols.BARRIER;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
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
 * A discovery stack with JGroups' usual choices (FD_SOCK2 on its own clear-text port, MERGE3 every
 * one to two failure timeouts, 2 s join timeout, quarter-timeout suspicion check): the baseline the
 * benchmarks print next to {@link DiscoveryStack}, to show what its choices gain. Not used outside them.
 */
final class BaselineStack {
    private BaselineStack() {}

    static List<Protocol> build(InetAddress bind, int port, List<InetSocketAddress> seeds, byte[] groupKey,
                                Duration failureTimeout) {
        long timeout = failureTimeout.toMillis();
        // NIO transport: no sender thread per peer, so a dead peer cannot stall the others (TCP's
        // non-blocking-sends mode does the same with a thread per peer, and such a thread can spin a core).
        TCP_NIO2 tcp = new TCP_NIO2();
        tcp.setBindAddress(bind);
        tcp.setBindPort(port);
        tcp.setValue("port_range", 0);
        tcp.getMessageStats().enable(true);
        TCPPING ping = new TCPPING();
        ping.initialHosts(seeds);
        ping.setPortRange(0);
        // Seeds are only the control planes; answering with every member known lets MERGE3 reach
        // subgroups led by non-seed nodes (several form when many nodes start at once).
        ping.returnEntireCache(true);
        ping.sendCacheOnJoin(true);
        MERGE3 merge = new MERGE3();
        // A partition heals within about two failure timeouts; MERGE3's rounds are a large part of the
        // traffic at rest (each one re-runs discovery), so they are not made more frequent than that.
        merge.setMinInterval(timeout);
        merge.setMaxInterval(2 * timeout);
        FD_ALL3 heartbeats = new FD_ALL3();
        heartbeats.setTimeout(timeout);
        heartbeats.setInterval(Math.max(500, timeout / 4));
        VERIFY_SUSPECT2 verify = new VERIFY_SUSPECT2();
        verify.setTimeout(Math.max(500, timeout / 4));
        NAKACK2 nakack = new NAKACK2();
        nakack.setValue("use_mcast_xmit", false);
        STABLE stable = new STABLE();
        stable.setDesiredAverageGossip(30_000);
        GMS gms = new GMS();
        gms.setJoinTimeout(2000);
        gms.setValue("print_local_addr", false);
        return List.of(tcp, new SealedEncryption(groupKey), new SERIALIZE(), ping, merge, new FD_SOCK2(), heartbeats,
                verify, new BARRIER(), nakack, new UNICAST3(), stable, gms);
    }
}
