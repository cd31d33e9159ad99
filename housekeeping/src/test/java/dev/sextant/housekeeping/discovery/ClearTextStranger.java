package dev.sextant.housekeeping.discovery;

import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A stranger who knows the discovery stack but holds no group key, for the attack suite: the
 * members' own stack with the seal ({@link SealedEncryption}) left out, speaking it in clear text
 * to the seeds. It counts every message that reaches it from anyone else, as its transport hands
 * them up, so an answer of any kind (a discovery response, a join response, a heartbeat) shows.
 */
public final class ClearTextStranger implements AutoCloseable {
    private final JChannel channel;
    private final Heard heard = new Heard();

    public ClearTextStranger(String name, InetAddress bind, int port, List<InetSocketAddress> seeds) throws Exception {
        byte[] unused = new byte[32];
        new SecureRandom().nextBytes(unused);
        List<Protocol> stack = new ArrayList<>(DiscoveryStack.build(bind, port, seeds, unused, Duration.ofSeconds(4)));
        stack.removeIf(SealedEncryption.class::isInstance);
        stack.add(1, heard);
        this.channel = new JChannel(stack);
        channel.name(name);
        channel.connect(GossipNode.GROUP);
    }

    /** Messages from anyone but itself that reached this stranger's transport so far. */
    public long messagesHeard() {
        return heard.fromOthers.sum();
    }

    /** Members of the stranger's own view (itself included). */
    public int members() {
        return channel.getView().size();
    }

    @Override
    public void close() {
        channel.close();
    }

    /** Sits right above the transport and counts what arrives from other addresses. */
    private static final class Heard extends Protocol {
        private final LongAdder fromOthers = new LongAdder();

        @Override
        public Object up(Message msg) {
            count(msg);
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            for (Message msg : batch) {
                count(msg);
            }
            up_prot.up(batch);
        }

        private void count(Message msg) {
            if (msg.getSrc() != null && !msg.getSrc().equals(getTransport().getAddress())) {
                fromOthers.increment();
            }
        }
    }
}
