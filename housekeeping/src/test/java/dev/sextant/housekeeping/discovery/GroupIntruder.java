package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.MemberCredentials;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.util.NameCache;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An attested member gone bad, for the attack suite: it holds the group key (so it is in the
 * group, on the real sealed stack) and sends whatever bytes it likes as announcements, either
 * raw or signed with any credentials it got hold of.
 */
public final class GroupIntruder implements AutoCloseable {
    private final JChannel channel;
    private final String domain;
    /** Logical names of the members whose direct (unicast) announcements reached this intruder, as they arrive. */
    private final BlockingQueue<String> answeredBy = new LinkedBlockingQueue<>();

    public GroupIntruder(String name, InetAddress bind, int port, List<InetSocketAddress> seeds, byte[] groupKey,
                         String domain) throws Exception {
        this.domain = domain;
        this.channel = new JChannel(DiscoveryStack.build(bind, port, seeds, groupKey, Duration.ofSeconds(4)));
        channel.name(name);
        channel.setReceiver(new Receiver() {
            @Override
            public void receive(Message msg) {
                // Members multicast their re-announces; only an answer to this intruder's request comes as a unicast.
                if (msg.getDest() != null && msg.getLength() > 0) {
                    answeredBy.add(String.valueOf(NameCache.get(msg.getSrc())));
                }
            }
        });
        channel.connect(GossipNode.GROUP);
    }

    public int members() {
        return channel.getView().size();
    }

    /** An announcement as a member with {@code credentials} signs it. */
    public byte[] signed(MemberCredentials credentials, long version, Set<EndpointRecord> records) {
        return new RecordSigner(new RecordCodec(domain), credentials).encode(version, records);
    }

    /** An announcement as a member with {@code credentials} signs it, carrying the revocation list {@code revocations}. */
    public byte[] signedWithRevocations(MemberCredentials credentials, long version, Set<EndpointRecord> records,
                                        byte[] revocations) {
        return new RecordSigner(new RecordCodec(domain), credentials).encode(version, records,
                java.util.Map.of(RecordVerifier.revocationsName(domain), revocations));
    }

    public void send(byte[] announcement) throws Exception {
        channel.send(new BytesMessage(null, announcement));
    }

    /**
     * Sends {@code announcement} to the group and returns once {@code member} has judged it and handed
     * any change it made to its listener. After the announcement this intruder multicasts an empty
     * message, the request a member missing an entry makes, and waits for {@code member}'s direct
     * answer: a member handles one sender's multicasts one after the other, and runs its listener and
     * its answers on one worker in the order it queued them, so the answer comes after both. This
     * observes the judgement without sending anything else that would replace the judged entry (the
     * record table keeps one entry per sender).
     */
    public void sendAndAwaitJudgement(byte[] announcement, String member, Duration timeout) throws Exception {
        answeredBy.clear();
        send(announcement);
        channel.send(new BytesMessage(null));
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String from; (from = answeredBy.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) != null; ) {
            if (from.equals(member)) {
                return;
            }
        }
        throw new AssertionError(member + " did not answer the intruder's request within " + timeout
                + ": its judgement of the announcement cannot be observed");
    }

    @Override
    public void close() {
        channel.close();
    }
}
