package dev.sextant.localcluster.mini.operator;

import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.etcd.client.EtcdClientConfig;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.localcluster.mini.files.MiniLayout;
import dev.sextant.localcluster.mini.node.EtcdMemberState;
import dev.sextant.localcluster.mini.node.NodeRole;
import dev.sextant.localcluster.mini.report.MiniFailure;
import dev.sextant.operatorfiles.MasterSecretFile;
import java.io.IOException;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * mini as a client of the cluster's etcd, as any holder of the master secret can be: the etcd CA is
 * derived from it (the same derivation the control planes use), so mini issues itself a short-lived
 * client certificate and asks each member, at its forwarded client port, how it stands. The member
 * certificates name 127.0.0.1, so the forward verifies as the member.
 */
public final class ClusterEtcd {
    private static final String CLIENT = "sextant-mini";
    private static final Duration CLIENT_VALIDITY = Duration.ofHours(1);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofSeconds(5);

    private final EtcdTlsFiles tls;

    private ClusterEtcd(EtcdTlsFiles tls) {
        this.tls = tls;
    }

    /** Issues mini's client certificate into {@link MiniLayout#etcdClientDir()} (its key 0600). */
    public static ClusterEtcd client(MiniLayout layout) throws IOException {
        MasterSecretFile secret = MasterSecretFile.parse(Files.readString(layout.masterSecret()), layout.masterSecret());
        byte[] seed = new KeyDerivation(secret.key(), secret.salt()).dataKey(EtcdCa.KEY_ID, KeyDerivation.KEY_BYTES);
        try {
            EtcdCa ca = new EtcdCa(seed, new SecureRandom());
            return new ClusterEtcd(EtcdTlsFiles.write(layout.etcdClientDir(), CLIENT, ca.certificate(),
                    ca.issueClient(CLIENT, Instant.now(), CLIENT_VALIDITY)));
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }

    /** The member of a node with these forwards (guest port to host port); {@link EtcdMemberState#NONE} on a worker. */
    public EtcdMemberState member(NodeRole role, Map<Integer, Integer> ports) {
        if (role != NodeRole.CONTROL_PLANE) {
            return EtcdMemberState.NONE;
        }
        Integer clientPort = ports.get(NodeRole.ETCD_CLIENT_PORT);
        return clientPort == null ? EtcdMemberState.unanswered("no etcd client port forwarded") : member(clientPort);
    }

    /**
     * Asks the members behind these client forwards (node name to host port) until every one votes
     * and is healthy; fails after {@code timeout} naming each member's last state and {@code logs}.
     */
    public Map<String, EtcdMemberState> awaitVoting(Map<String, Integer> clientPorts, Duration timeout, String logs)
            throws MiniFailure {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Map<String, EtcdMemberState> members = new LinkedHashMap<>();
            clientPorts.forEach((name, port) -> members.put(name, member(port)));
            if (members.values().stream().allMatch(EtcdMemberState::votingAndHealthy)) {
                return members;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new MiniFailure("not every control plane's etcd member votes within " + timeout.toMinutes()
                        + " min: " + describe(members) + "; console logs: " + logs);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MiniFailure("interrupted while waiting for the etcd members to vote", e);
            }
        }
    }

    /** "control-plane-0 leader, healthy; control-plane-1 learner, healthy". */
    public static String describe(Map<String, EtcdMemberState> members) {
        return members.entrySet().stream().map(m -> m.getKey() + " " + m.getValue().describe())
                .collect(Collectors.joining("; "));
    }

    /** The member behind 127.0.0.1:{@code clientHostPort}, as it answers itself. */
    public EtcdMemberState member(int clientHostPort) {
        String endpoint = "127.0.0.1:" + clientHostPort;
        try (EtcdClient client = new EtcdClient(new EtcdClientConfig(List.of(endpoint), tls, CALL_TIMEOUT))) {
            return EtcdMemberState.of(client.status(endpoint));
        } catch (RuntimeException e) {
            return EtcdMemberState.unanswered(e.getMessage());
        }
    }
}
