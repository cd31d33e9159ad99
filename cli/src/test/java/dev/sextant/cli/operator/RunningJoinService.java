package dev.sextant.cli.operator;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.cli.Main;
import dev.sextant.etcd.client.EtcdClient;
import dev.sextant.joinapi.TestCluster;
import dev.sextant.joinapi.TestClusterStore;
import dev.sextant.joinapi.nodestate.AttestationRecord;
import dev.sextant.joinapi.nodestate.NodeStateStore;
import dev.sextant.serviceconfig.JoinServiceConfig;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A control plane's join service as the operator meets it: real etcd (the bindings and node state), real
 * gRPC on a real port, attesting itself with a real swtpm in mutual-capable aTLS; and the operator's files
 * (the master secret file the service's secret came from, measurements expecting the fresh swtpm's zero PCRs,
 * its EK CA). Nodes are bound by writing their keys, as a join would.
 */
public final class RunningJoinService implements AutoCloseable {
    public static final String V1 = "/sextant/v1/";

    public final TestCluster cluster;
    public final TestClusterStore etcd;
    public final EtcdClient admin;
    public final Swtpm tpm;
    public final ApplicationContext service;
    public final int port;
    public final NodeStateStore nodes;
    public final Path masterSecretFile;
    public final Path measurementsFile;
    public final Path ekCaFile;

    public record Run(int exit, String out, String err) {
    }

    RunningJoinService() throws Exception {
        this(false);
    }

    /**
     * @param bootstrapped whether the service's TPM has PCR 15 marked, as a control plane's after its bootstrap
     *                     (what {@code measurements publish} and {@code upgrade image} require of a join service),
     *                     and the cluster's measurement signing key pinned in etcd, as the init node's service pins it
     */
    public RunningJoinService(boolean bootstrapped) throws Exception {
        Swtpm.assumeAvailable();
        cluster = new TestCluster();
        etcd = new TestClusterStore(1);
        admin = etcd.admin();
        tpm = Swtpm.provisioned();
        if (bootstrapped) {
            byte[] mark = new byte[32];
            java.util.Arrays.fill(mark, (byte) 0x15);
            tpm.client().pcr().extend(15, mark);
            StringWriter pub = new StringWriter();
            try (org.bouncycastle.openssl.jcajce.JcaPEMWriter w = new org.bouncycastle.openssl.jcajce.JcaPEMWriter(pub)) {
                w.writeObject(cluster.signingKey.getPublic());
            }
            admin.put(V1 + "measurements/key", MeasurementsKey.of(pub.toString()).fingerprint());
        }
        tpm.releaseClient(); // swtpm serves one connection at a time: the service opens its own
        Map<String, Object> p = new HashMap<>(etcd.joinService(cluster, "join-operator"));
        p.put(JoinServiceConfig.ATLS_ENABLED, "true");
        p.put(JoinServiceConfig.ATLS_SERVER_TPM, tpm.tpmArg());
        p.put(JoinServiceConfig.ATLS_SERVER_EVENT_LOG, cluster.dir.resolve("no-event-log").toString());
        p.put("grpc.server.port", "0");
        p.put("micronaut.server.port", "-1");
        service = ApplicationContext.builder().properties(p).start();
        GrpcEmbeddedServer server = service.getBean(GrpcEmbeddedServer.class);
        server.start();
        port = server.getPort();
        nodes = service.getBean(NodeStateStore.class);

        Path operator = Files.createDirectories(cluster.dir.resolve("operator"));
        masterSecretFile = Files.writeString(operator.resolve("sextant-mastersecret.json"), masterSecretJson(cluster.masterSecret, cluster.masterSalt));
        TreeMap<Integer, ExpectedValue> expected = new TreeMap<>();
        for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
            expected.put(pcr, new ExpectedValue(new byte[32], false)); // a fresh swtpm's PCRs: nothing was measured into it
        }
        measurementsFile = Files.write(operator.resolve("measurements.json"), new Measurements(Variant.QEMU_VTPM, expected).toJson());
        ekCaFile = Files.writeString(operator.resolve("ek-ca.pem"), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(tpm.ca().certificate().getEncoded())
                + "\n-----END CERTIFICATE-----\n");
    }

    static String masterSecretJson(byte[] key, byte[] salt) {
        Base64.Encoder b64 = Base64.getEncoder();
        return "{\"key\":\"" + b64.encodeToString(key) + "\",\"salt\":\"" + b64.encodeToString(salt)
                + "\",\"measurementSalt\":\"" + b64.encodeToString(new byte[32]) + "\"}\n";
    }

    public String endpoint() {
        return "127.0.0.1:" + port;
    }

    /** Binds {@code name} to {@code ak} in {@code role}, with the keys a join writes that the operator's view reads. */
    public void bind(String name, String ak, String role) {
        admin.put(V1 + "bindings/node/" + name, ak);
        admin.put(V1 + "bindings/machine/" + ak + "/node", name);
        admin.put(V1 + "bindings/machine/" + ak + "/role", role);
    }

    public void attested(String name, Instant at, String imageVersion) throws Exception {
        nodes.recordAttestation(name, AttestationRecord.attested(at, imageVersion));
    }

    /** {@code sextant ARGS} as the operator runs it. */
    public static Run sextant(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** The operator's command against this join service, with the operator's files. */
    Run operator(Path masterSecret, String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of("--endpoint", endpoint(), "--master-secret", masterSecret.toString(),
                "--measurements", measurementsFile.toString(), "--ek-ca", ekCaFile.toString(), "--timeout", "20"));
        return sextant(args.toArray(String[]::new));
    }

    Run operator(String... command) {
        return operator(masterSecretFile, command);
    }

    @Override
    public void close() throws Exception {
        if (service != null) {
            service.close();
        }
        if (tpm != null) {
            tpm.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
