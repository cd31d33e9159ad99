package dev.sextant.joinapi.binding;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.clusterstore.ClusterStoreRetry;
import dev.sextant.joinapi.input.InputChecks;
import dev.sextant.joinapi.nodestate.AttestationWrite;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Context;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds the init node's node name and disks (state disk first, then data volumes) to its AK at
 * start-up, before the join service serves: the init node derived its disk key itself and never
 * joined, so without this the first attested caller naming its disk UUID or node name would be
 * given that disk's key or that node's name. In the same transaction: its role, its control-plane
 * place and the cluster's control-plane limit ({@code sextant.join.control-planes}). Eager
 * ({@link Context}) and a dependency of the endpoint, so no call is answered before the claim
 * succeeded; idempotent across restarts (and across the join services of several control planes).
 * While etcd does not answer, the claim is made again with back-off for up to a minute
 * ({@link ClusterStoreRetry#AT_START}); if another machine already holds any of them, or etcd still does
 * not answer then, the service refuses to start (its supervisor starts it again).
 *
 * <p>Settings: {@code sextant.join.init-node.ak-name} (hex of the TPM AK name),
 * {@code sextant.join.init-node.node-name}, {@code sextant.join.init-node.disk-uuids} (comma list).
 * All three or none (a join service whose init node has no Sextant disk, as in tests).
 */
@Context
public class InitNodeClaim {
    private static final Logger LOG = LoggerFactory.getLogger(InitNodeClaim.class);

    /** Whether this start bound the init node's name: the join service's first start, at init. */
    private boolean boundNow;

    @Inject
    public InitNodeClaim(Bindings bindings, JoinServiceConfig config, NodeStateStore nodes) {
        this(bindings, config.initNode().isEmpty() ? Optional.empty()
                : parse(config.initNode().get().akNameHex(), config.initNode().get().nodeName(),
                        String.join(",", config.initNode().get().diskUuids())),
                config.controlPlanes(), ClusterStoreRetry.atStart());
        config.initNode().ifPresent(n -> recordEndpoint(nodes, n));
        if (boundNow) {
            config.initNode().ifPresent(n -> recordAttestedAtInit(nodes, n));
        }
    }

    /**
     * The init node's record at init: {@code sextant init} verified it over aTLS moments before this first start,
     * and it asks for no ticket before its first reboot, so without this {@code cluster status} would show it
     * "not re-attested yet" until the first round. Written only when absent ({@link NodeStateStore#recordInitNode});
     * a failure is logged, and the first round writes the record.
     */
    private static void recordAttestedAtInit(NodeStateStore nodes, JoinServiceConfig.InitNode n) {
        try {
            AttestationWrite write = nodes.recordInitNode(n.nodeName(), n.akNameHex().toLowerCase(Locale.ROOT));
            LOG.info("init node {}: {}", n.nodeName(), write == AttestationWrite.WRITTEN ? "recorded attested at init"
                    : "its record was not written (" + write + ")");
        } catch (Refusal r) {
            LOG.warn("the init node's record was not written at init (the first round writes it): {}", r.getMessage());
        }
    }

    /**
     * Where the init node's VerifyService answers ({@code sextant.join.init-node.verify-endpoint}), kept as a
     * rejoin ticket keeps it: the init node asks for no ticket before its first reboot, and without an endpoint
     * no re-attestation round asks it, so its member certificate (an hour) would not be renewed. The endpoint
     * decides only where to ask; a failure to keep it is logged, and its next rejoin reports it again.
     */
    private static void recordEndpoint(NodeStateStore nodes, JoinServiceConfig.InitNode n) {
        if (n.verifyEndpoint().isEmpty()) {
            LOG.warn("no {}: re-attestation asks the init node {} only after its first rejoin",
                    JoinServiceConfig.INIT_NODE_VERIFY_ENDPOINT, n.nodeName());
            return;
        }
        try {
            Optional<String> endpoint = InputChecks.verifyEndpoint(n.verifyEndpoint());
            if (endpoint.isPresent()) {
                nodes.recordEndpoint(n.nodeName(), endpoint.get());
                LOG.info("init node {}: its VerifyService answers at {}", n.nodeName(), endpoint.get());
            }
        } catch (Refusal r) {
            LOG.warn("the init node's endpoint was not kept ({}): {}", JoinServiceConfig.INIT_NODE_VERIFY_ENDPOINT, r.getMessage());
        }
    }

    /**
     * Claims {@code node}'s bindings, asking etcd again while it does not answer ({@code retry}): the
     * claim is the first etcd call of the service's JVM, the one most likely to outlast its deadline.
     */
    InitNodeClaim(Bindings bindings, Optional<InitNode> node, int configuredLimit, ClusterStoreRetry retry) {
        if (node.isEmpty()) {
            LOG.warn("no init node configured (sextant.join.init-node.*): nothing is bound before the first join");
            return;
        }
        InitNode n = node.get();
        MachineClaim claim = new MachineClaim(HexFormat.of().formatHex(n.akName()), true, n.diskUuids().get(0),
                n.nodeName(), n.diskUuids().subList(1, n.diskUuids().size()));
        int limit;
        try {
            limit = retry.run("binding the init node " + n.nodeName() + " before serving", () -> {
                boundNow |= bindings.claimInitNode(claim);
                return bindings.controlPlaneLimit();
            });
        } catch (Refusal r) {
            throw new IllegalStateException("cannot bind the init node " + n.nodeName() + " to its AK before serving: "
                    + r.getMessage(), r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the join service stopped before the init node " + n.nodeName() + " was bound", e);
        }
        if (limit != configuredLimit) {
            LOG.warn("the cluster admits {} control planes (written at its first init); {}={} is not used",
                    limit, JoinServiceConfig.CONTROL_PLANES, configuredLimit);
        }
        LOG.info("init node {} bound to its AK with {} disk(s) before serving", n.nodeName(), n.diskUuids().size());
    }

    record InitNode(byte[] akName, String nodeName, List<String> diskUuids) {}

    static Optional<InitNode> parse(String akNameHex, String nodeName, String diskUuids) {
        if (akNameHex.isEmpty() && nodeName.isEmpty() && diskUuids.isEmpty()) {
            return Optional.empty();
        }
        if (akNameHex.isEmpty() || nodeName.isEmpty() || diskUuids.isEmpty()) {
            throw new IllegalStateException("sextant.join.init-node.ak-name, node-name and disk-uuids must be set together");
        }
        byte[] ak;
        try {
            ak = HexFormat.of().parseHex(akNameHex);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("sextant.join.init-node.ak-name is not hex", e);
        }
        List<String> uuids = Arrays.stream(diskUuids.split(",")).map(String::strip).toList();
        try {
            InputChecks.nodeName(nodeName);
            for (String uuid : uuids) {
                InputChecks.diskUuid(uuid);
            }
        } catch (Refusal r) {
            throw new IllegalStateException("sextant.join.init-node: " + r.getMessage(), r);
        }
        return Optional.of(new InitNode(ak, nodeName, uuids));
    }
}
