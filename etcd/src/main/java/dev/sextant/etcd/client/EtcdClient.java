package dev.sextant.etcd.client;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.api.ClusterGrpc;
import dev.sextant.etcd.api.EtcdKv.KeyValue;
import dev.sextant.etcd.api.EtcdRpc.Compare;
import dev.sextant.etcd.api.EtcdRpc.Member;
import dev.sextant.etcd.api.EtcdRpc.MemberAddRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberListRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberPromoteRequest;
import dev.sextant.etcd.api.EtcdRpc.MemberRemoveRequest;
import dev.sextant.etcd.api.EtcdRpc.PutRequest;
import dev.sextant.etcd.api.EtcdRpc.RangeRequest;
import dev.sextant.etcd.api.EtcdRpc.RangeResponse;
import dev.sextant.etcd.api.EtcdRpc.RequestOp;
import dev.sextant.etcd.api.EtcdRpc.ResponseOp;
import dev.sextant.etcd.api.EtcdRpc.StatusRequest;
import dev.sextant.etcd.api.EtcdRpc.StatusResponse;
import dev.sextant.etcd.api.EtcdRpc.TxnRequest;
import dev.sextant.etcd.api.EtcdRpc.TxnResponse;
import dev.sextant.etcd.api.KVGrpc;
import dev.sextant.etcd.api.MaintenanceGrpc;
import io.grpc.Channel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The cluster store's client: the few etcd v3 calls Sextant makes, over mutual TLS to a list of
 * members, going on with the next member when one is down ({@link EndpointChannels}). Keys and values
 * are UTF-8 text (docs/cluster-store.md). Every call has a deadline ({@link EtcdClientConfig#callTimeout()}
 * per attempt) and fails with an {@link EtcdException} naming the endpoints and etcd's answer.
 *
 * <p>A call whose answer was lost (a deadline, a member stopping mid-call) may still have been applied,
 * and is tried again at the next member: writes here are safe to repeat (a put of the same value; a
 * create-all finds its own values and reports them as present; adding a learner whose peer URL exists
 * is refused by etcd, see {@code EtcdMembership}). Reads are linearizable.
 *
 * <p>The TLS files are read once, when the client is made: open a new client after renewing its
 * certificate.
 */
public final class EtcdClient implements AutoCloseable {
    private final EndpointChannels channels;

    public EtcdClient(EtcdClientConfig config) {
        this.channels = new EndpointChannels(config);
    }

    /** Calls made so far, each attempt at each endpoint counted once: what a benchmark divides by. */
    public long roundTrips() {
        return channels.roundTrips();
    }

    public Optional<String> get(String key) {
        RangeResponse response = channels.call("get", c -> kv(c).range(RangeRequest.newBuilder().setKey(bytes(key)).build()));
        return response.getKvsCount() == 0 ? Optional.empty() : Optional.of(text(response.getKvs(0).getValue()));
    }

    /** The value at {@code key} with its modification revision; empty when the key is absent. */
    public Optional<Versioned> getVersioned(String key) {
        RangeResponse response = channels.call("get", c -> kv(c).range(RangeRequest.newBuilder().setKey(bytes(key)).build()));
        if (response.getKvsCount() == 0) {
            return Optional.empty();
        }
        KeyValue kv = response.getKvs(0);
        return Optional.of(new Versioned(text(kv.getValue()), kv.getModRevision()));
    }

    /**
     * Writes {@code value} at {@code key} only if the key was last modified at {@code modRevision} (0: only if
     * it is absent), in one transaction: a compare-and-swap. False when another writer came first.
     */
    public boolean putIfUnmodified(String key, String value, long modRevision) {
        TxnRequest txn = TxnRequest.newBuilder()
                .addCompare(Compare.newBuilder().setKey(bytes(key)).setTarget(Compare.CompareTarget.MOD)
                        .setResult(Compare.CompareResult.EQUAL).setModRevision(modRevision))
                .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value))))
                .build();
        return channels.call("compare-and-put", c -> kv(c).txn(txn)).getSucceeded();
    }

    /** Writes {@code value} at {@code key}; returns the store's revision after the write. */
    public long put(String key, String value) {
        return channels.call("put", c -> kv(c).put(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(value)).build()))
                .getHeader().getRevision();
    }

    /** {@link #createAll(Map, Optional)} without a prefix guard. */
    public CreateAllResult createAll(Map<String, String> entries) {
        return createAll(entries, Optional.empty());
    }

    /**
     * Writes every entry if every key is absent and, with a guard, no key under the guard's prefix was
     * modified after its revision; otherwise writes nothing and reads, in the same transaction, the
     * current value of every requested key present (and the guarded keys modified since). One round trip.
     */
    public CreateAllResult createAll(Map<String, String> entries, Optional<PrefixUnchangedSince> guard) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("a create-all transaction needs at least one key");
        }
        List<String> keys = List.copyOf(entries.keySet());
        TxnRequest.Builder txn = TxnRequest.newBuilder();
        for (String key : keys) {
            txn.addCompare(Compare.newBuilder().setKey(bytes(key)).setTarget(Compare.CompareTarget.CREATE)
                    .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0));
            txn.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(bytes(key)).setValue(bytes(entries.get(key)))));
            txn.addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(bytes(key))));
        }
        guard.ifPresent(g -> {
            ByteString prefix = bytes(g.prefix());
            ByteString end = prefixEnd(prefix);
            txn.addCompare(Compare.newBuilder().setKey(prefix).setRangeEnd(end).setTarget(Compare.CompareTarget.MOD)
                    .setResult(Compare.CompareResult.LESS).setModRevision(g.revision() + 1));
            // A count would ignore the revision filter (etcd applies it after counting): list the keys.
            txn.addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(prefix).setRangeEnd(end)
                    .setKeysOnly(true).setMinModRevision(g.revision() + 1)));
        });
        String operation = "create-all transaction of " + keys.size() + " keys" + (guard.isPresent() ? " with a prefix guard" : "");
        TxnResponse response = channels.call(operation, c -> kv(c).txn(txn.build()));
        if (response.getSucceeded()) {
            return new CreateAllResult.Created(response.getHeader().getRevision());
        }
        Map<String, String> present = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            RangeResponse range = response.getResponses(i).getResponseRange();
            if (range.getKvsCount() > 0) {
                present.put(keys.get(i), text(range.getKvs(0).getValue()));
            }
        }
        List<String> changed = new ArrayList<>();
        if (guard.isPresent()) {
            ResponseOp last = response.getResponses(keys.size());
            for (KeyValue kv : last.getResponseRange().getKvsList()) {
                changed.add(text(kv.getKey()));
            }
        }
        return new CreateAllResult.Refused(present, changed);
    }

    /** The number of keys under {@code prefix} and the revision it was counted at; the keys are not read. */
    public PrefixCount count(String prefix) {
        ByteString start = bytes(prefix);
        RangeResponse response = channels.call("count", c -> kv(c).range(RangeRequest.newBuilder()
                .setKey(start).setRangeEnd(prefixEnd(start)).setCountOnly(true).build()));
        return new PrefixCount(response.getCount(), response.getHeader().getRevision());
    }

    public List<EtcdMember> members() {
        return members(channels.call("member list", c -> cluster(c).memberList(MemberListRequest.getDefaultInstance())).getMembersList());
    }

    /** Adds a non-voting member with these peer URLs; it has no name until it starts. */
    public EtcdMember addLearner(List<String> peerUrls) {
        Member added = channels.call("member add (learner)", c -> cluster(c)
                .memberAdd(MemberAddRequest.newBuilder().addAllPeerURLs(peerUrls).setIsLearner(true).build())).getMember();
        return member(added);
    }

    /**
     * Makes a learner a voting member. etcd refuses (FAILED_PRECONDITION, "can only promote a learner
     * member which is in sync with leader") until the learner has caught up.
     */
    public List<EtcdMember> promote(long memberId) {
        return members(channels.call("member promote", c -> cluster(c)
                .memberPromote(MemberPromoteRequest.newBuilder().setID(memberId).build())).getMembersList());
    }

    public List<EtcdMember> remove(long memberId) {
        return members(channels.call("member remove", c -> cluster(c)
                .memberRemove(MemberRemoveRequest.newBuilder().setID(memberId).build())).getMembersList());
    }

    /** The status of the member at {@code endpoint} (any endpoint, not only the configured ones), asked there alone. */
    public EndpointStatus status(String endpoint) {
        StatusResponse s = channels.callAt(endpoint, "status", c -> MaintenanceGrpc.newBlockingStub(c)
                .withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS).status(StatusRequest.getDefaultInstance()));
        return new EndpointStatus(endpoint, s.getHeader().getMemberId(), s.getLeader(), s.getRaftTerm(), s.getRaftIndex(),
                s.getRaftAppliedIndex(), s.getIsLearner(), s.getVersion(), s.getErrorsList());
    }

    private KVGrpc.KVBlockingStub kv(Channel channel) {
        return KVGrpc.newBlockingStub(channel).withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private ClusterGrpc.ClusterBlockingStub cluster(Channel channel) {
        return ClusterGrpc.newBlockingStub(channel).withDeadlineAfter(channels.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    private static List<EtcdMember> members(List<Member> members) {
        return members.stream().map(EtcdClient::member).toList();
    }

    private static EtcdMember member(Member m) {
        return new EtcdMember(m.getID(), m.getName(), m.getPeerURLsList(), m.getClientURLsList(), m.getIsLearner());
    }

    /** The end of the range of keys starting with {@code prefix}: the prefix with its last byte below 0xff raised by one. */
    static ByteString prefixEnd(ByteString prefix) {
        byte[] end = prefix.toByteArray();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return ByteString.copyFrom(end, 0, i + 1);
            }
        }
        return ByteString.copyFrom(new byte[]{0}); // every byte 0xff: to the end of the key space
    }

    private static ByteString bytes(String s) {
        return ByteString.copyFromUtf8(s);
    }

    private static String text(ByteString b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        channels.close();
    }
}
