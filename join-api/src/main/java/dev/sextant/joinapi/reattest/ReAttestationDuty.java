package dev.sextant.joinapi.reattest;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.duty.DutyConfig;
import dev.sextant.etcd.duty.DutyHolder;
import dev.sextant.etcd.duty.DutyListener;
import dev.sextant.etcd.duty.Holding;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.nodestate.AttestationState;
import dev.sextant.joinapi.nodestate.AttestationWrite;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.joinapi.nodestate.NodeStates;
import dev.sextant.joinapi.nodestate.NodeStatus;
import dev.sextant.joinapi.nodestate.RevocationWrite;
import dev.sextant.joinapi.nodestate.VersionedAttestation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The re-attestation duty of one join service: it competes for {@code reattest/holder} with a
 * {@link DutyHolder} (a lease of {@code lease}), and while it holds it runs a round every {@code period}
 * over every bound machine that reported an endpoint and is not revoked. It asks {@link DutyHolder#isHolder()}
 * before each round and before each node's write, and every write is fenced on the tenure's create
 * revision, so a holder that lost the duty mid-round (paused, cut off) writes nothing more: etcd refuses it.
 * A result computed from a node's record is written only while the record is the one the round read, so a
 * join or rejoin ticket that wrote it during the round is neither overwritten nor revoked UNREACHABLE.
 * After each round the revocation list is published if a newer one is due ({@link RevocationPublisher}).
 */
public final class ReAttestationDuty implements AutoCloseable {
    /** The key below the cluster store's root (docs/re-attestation.md). */
    public static final String HOLDER_KEY = "/sextant/v1/reattest/holder";
    private static final Logger LOG = LoggerFactory.getLogger(ReAttestationDuty.class);
    private static final String SUPERSEDED = "node {}'s record changed during the round (a join or rejoin): this round's result for it was not written";

    /** Opens the round at the first one this service runs: building it asks the KMS for the cluster ID. */
    @FunctionalInterface
    public interface Rounds {
        ReAttestationRound open() throws Refusal;
    }

    /** What each round left: the tests' and the log's view. */
    public record RoundReport(ReAttestationRound.Result result, int revoked, boolean tenureEnded) {
    }

    /** Where the etcd client comes from: the join service's own, made at the first call (no etcd at start is fine). */
    @FunctionalInterface
    public interface EtcdClients {
        EtcdClient client() throws Refusal;
    }

    private final EtcdClients etcd;
    private final NodeStateStore store;
    private final Rounds rounds;
    private final RevocationPublisher publisher;
    private final ReAttestationSettings settings;
    private final String holderName;
    private final Clock clock;
    private final RevokedNodeFollowUp revokedNodes;
    private final Object lock = new Object();
    private volatile boolean closed;
    private Thread thread;
    private volatile DutyHolder holder; // made by the duty's thread once etcd is reachable
    private ReAttestationRound round;
    private volatile RoundReport last;
    private boolean waitingForEtcd; // the duty's thread's: said once that etcd cannot be reached yet

    public ReAttestationDuty(EtcdClients etcd, NodeStateStore store, Rounds rounds, RevocationPublisher publisher,
                             ReAttestationSettings settings, String holderName, Clock clock) {
        this(etcd, store, rounds, publisher, settings, holderName, clock, RevokedNodeFollowUp.none());
    }

    /** @param revokedNodes applied after every round to every revoked node (where Kubernetes runs: cordon and taint) */
    public ReAttestationDuty(EtcdClients etcd, NodeStateStore store, Rounds rounds, RevocationPublisher publisher,
                             ReAttestationSettings settings, String holderName, Clock clock, RevokedNodeFollowUp revokedNodes) {
        this.revokedNodes = revokedNodes;
        this.etcd = etcd;
        this.store = store;
        this.rounds = rounds;
        this.publisher = publisher;
        this.settings = settings;
        this.holderName = holderName;
        this.clock = clock;
    }

    public synchronized ReAttestationDuty start() {
        if (thread != null) {
            throw new IllegalStateException("the re-attestation duty was started already");
        }
        thread = new Thread(this::run, "re-attestation duty (" + holderName + ")");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Whether this service holds the duty now. */
    public boolean isHolder() {
        DutyHolder h = holder;
        return h != null && h.isHolder();
    }

    /** The last round this service ran, if any. */
    public Optional<RoundReport> lastRound() {
        return Optional.ofNullable(last);
    }

    /**
     * Looks every third of the lease whether this service holds the duty; while it does, runs a round every
     * period, counted from the start of the last (a slow round does not drift the schedule), the first at
     * once when the duty is taken.
     */
    private void run() {
        long nextRound = System.nanoTime();
        long look = settings.lease().toNanos() / 3;
        while (!closed) {
            if (holder == null) {
                holder = candidate();
            }
            long now = System.nanoTime();
            Optional<Holding> tenure = holder == null ? Optional.empty() : holder.holding();
            if (tenure.isEmpty()) {
                nextRound = now; // a round as soon as the duty is ours
            } else if (now - nextRound >= 0) {
                nextRound = now + settings.period().toNanos();
                try {
                    last = runRound(tenure.get());
                } catch (Refusal r) {
                    LOG.warn("re-attestation round failed ({}): {}", r.reason().tag(), r.getMessage(), r.getCause());
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    LOG.error("re-attestation round failed", e);
                }
            }
            long wakeUp = tenure.isPresent() ? Math.min(nextRound - System.nanoTime(), look) : look;
            long until = System.nanoTime() + wakeUp;
            synchronized (lock) {
                for (long left = wakeUp; left > 0 && !closed; left = until - System.nanoTime()) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    private DutyHolder candidate() {
        try {
            DutyHolder made = new DutyHolder(etcd.client(), new DutyConfig(HOLDER_KEY, holderName,
                    Duration.ofSeconds(settings.lease().getSeconds())), new Logged());
            synchronized (this) {
                if (closed) {
                    return null;
                }
                return made.start();
            }
        } catch (Refusal r) {
            if (!waitingForEtcd) {
                LOG.warn("cannot compete for the re-attestation duty yet, trying again every {} s: {}",
                        settings.lease().getSeconds() / 3, r.getMessage());
                waitingForEtcd = true;
            }
            return null;
        }
    }

    /** One round under {@code tenure}: ask, judge, write each node's state (fenced), revoke, publish. */
    RoundReport runRound(Holding tenure) throws Refusal, InterruptedException {
        if (round == null) {
            round = rounds.open();
        }
        // One read at one revision: the bindings, the nodes' records with their revisions and the revocations. The
        // results are computed from the records read here, before any call: a ticket (join or rejoin) that writes a
        // node's record from here on moves its revision, and the round's writes that rest on the record read compare
        // it (the ticket's fresher record stands).
        NodeStates states = store.states();
        List<NodeStatus> nodes = states.nodes();
        Map<String, String> nameOfAk = new HashMap<>();
        List<BoundMachine> machines = new ArrayList<>();
        Map<String, String> revokedReasons = new LinkedHashMap<>(); // every revoked node, for the follow-up
        for (NodeStatus node : nodes) {
            nameOfAk.put(node.ak(), node.name());
            if (node.state() == AttestationState.REVOKED) {
                revokedReasons.put(node.name(), node.reason());
            }
            if (node.state() != AttestationState.REVOKED && node.endpoint().isPresent()) {
                machines.add(new BoundMachine(node.name(), node.ak(), node.endpoint().get(), node.role()));
            }
        }
        ReAttestationRound.Result result = round.run(machines, ak -> Optional.ofNullable(nameOfAk.get(ak)));
        int revoked = 0;
        boolean ended = false;
        for (BoundMachine machine : machines) {
            if (!holder.isHolder()) {
                ended = true; // the fence would refuse anyway; stop asking etcd
                break;
            }
            VersionedAttestation before = states.attestation(machine.name());
            Transition next = Transition.after(before.record(), result.outcomes().get(machine.name()), clock.instant(),
                    settings.missedPeriods());
            if (next instanceof Transition.Record record) {
                // Every record a round writes is compared with the one it read: a missed round counts on from it, and an
                // attested one adds nothing to a rejoin's record, which rests on a full attestation later than the call.
                AttestationWrite written = store.recordAttestation(machine.name(), machine.boundAk(), record.attestation(),
                        tenure.fence(), before.modRevision());
                ended = written == AttestationWrite.TENURE_ENDED;
                if (written == AttestationWrite.REVOKED) {
                    // Revoked since the round read the nodes (the operator's): revocation is final, the result is not written.
                    LOG.info("node {} was revoked during the round: its result was not written", machine.name());
                } else if (written == AttestationWrite.SUPERSEDED) {
                    LOG.info(SUPERSEDED, machine.name());
                }
            } else {
                Transition.Revoke revoke = (Transition.Revoke) next;
                // UNREACHABLE counts the missed rounds of the record read: stale once a rejoin wrote a fresh record, so
                // compared with it. A revocation on this round's own evidence (PCR_MISMATCH, IMAGE_RETIRED over this
                // round's nonce from the bound AK, AK_MISMATCH: the AK on a second machine) is not: that evidence holds
                // whatever a ticket wrote since. A rejoin in between proves only that the machine could also quote an
                // admitted state at another moment (a host can reboot it into one), which does not undo what it quoted
                // to this round; revocation on such evidence is final, so it must not hinge on a ticket's timing.
                OptionalLong readAt = revoke.code() == RevocationReason.UNREACHABLE ? OptionalLong.of(before.modRevision())
                        : OptionalLong.empty();
                RevocationWrite revocation = store.revoke(machine.name(), machine.boundAk(), revoke.reason(), holderName,
                        tenure.fence(), readAt);
                ended = revocation.outcome() == AttestationWrite.TENURE_ENDED;
                if (revocation.outcome() == AttestationWrite.SUPERSEDED) {
                    LOG.info(SUPERSEDED, machine.name());
                } else if (!ended) {
                    revoked++;
                    revokedReasons.put(machine.name(), revocation.inForce().orElseThrow().reason());
                    LOG.warn("revoked node {} (AK {}): {}", machine.name(), EvidenceJudge.shortAk(machine.boundAk()), revoke.reason());
                }
            }
            if (ended) {
                break;
            }
        }
        if (ended) {
            LOG.warn("the re-attestation tenure ended during a round: the rest of its results were not written");
        }
        if (!ended) {
            // Every round, not only one that revoked: a list that the KMS or etcd kept from being written (here, by
            // a holder that died after its revocation, or by the operator's Revoke) is written at the next round.
            publisher.publish(Optional.of(tenure.fence()));
        }
        if (!ended && !revokedReasons.isEmpty()) {
            // Every round, for every revoked node (docs/re-attestation.md): this round's, earlier rounds', the operator's.
            // After the list: an API server in trouble must not hold up what keeps the node out of discovery.
            revokedNodes.apply(revokedReasons);
        }
        LOG.info("re-attestation round: {}{}", result.summary(), revoked > 0 ? ", " + revoked + " revoked" : "");
        return new RoundReport(result, revoked, ended);
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = thread;
        }
        synchronized (lock) {
            lock.notifyAll();
        }
        if (running != null && running != Thread.currentThread()) {
            running.interrupt();
            try {
                running.join(settings.period().plusSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        DutyHolder h = holder;
        if (h != null) {
            h.close(); // resigns: another join service takes the duty at once
        }
        if (round != null) {
            round.close();
        }
    }

    /** The duty's tenures in the log: who holds re-attestation is what an operator asks first. */
    private final class Logged implements DutyListener {
        @Override
        public void onTaken(Holding holding) {
            LOG.info("{} holds the re-attestation duty now (lease {}, every {})", holderName, settings.lease(), settings.period());
        }

        @Override
        public void onLost(Holding holding, String reason) {
            LOG.warn("{} no longer holds the re-attestation duty: {}", holderName, reason);
        }
    }
}
