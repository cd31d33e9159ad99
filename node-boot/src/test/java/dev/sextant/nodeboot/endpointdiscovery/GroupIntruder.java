package dev.sextant.nodeboot.endpointdiscovery;

import dev.sextant.keys.member.MemberCredentials;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * An attested member gone bad, for the attack suite: it holds the group key (so it is in the
 * group, on the real sealed stack) and sends whatever bytes it likes as announcements, either
 * raw or signed with any credentials it got hold of.
 */
public final class GroupIntruder implements AutoCloseable {
    private final JChannel channel;
    private final String domain;

    public GroupIntruder(String name, InetAddress bind, int port, List<InetSocketAddress> seeds, byte[] groupKey,
                         String domain) throws Exception {
        this.domain = domain;
        this.channel = new JChannel(DiscoveryStack.build(bind, port, seeds, groupKey, Duration.ofSeconds(4)));
        channel.name(name);
        channel.connect(GossipNode.GROUP);
    }

    public int members() {
        return channel.getView().size();
    }

    /** An announcement as a member with {@code credentials} signs it. */
    public byte[] signed(MemberCredentials credentials, long version, Set<EndpointRecord> records) {
        return new RecordSigner(new RecordCodec(domain), credentials).encode(version, records);
    }

    public void send(byte[] announcement) throws Exception {
        channel.send(new BytesMessage(null, announcement));
    }

    @Override
    public void close() {
        channel.close();
    }
}
