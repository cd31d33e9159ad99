package dev.sextant.cli.upgrade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.ImageMeasurements;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.operator.RunningJoinService;
import dev.sextant.cli.operator.RunningJoinService.Run;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sextant upgrade image} against a real join service (real etcd, real gRPC with aTLS, a swtpm whose
 * PCR 15 is marked as a bootstrapped control plane's): the sets it publishes reach etcd, and the nodes'
 * re-attestation is simulated by writing their records through the join service's node-state store.
 * The join service's TPM is image A's (a fresh swtpm's zero PCRs) throughout: it is verified against the set
 * in force at each call, which admits A until the end.
 */
@DisplayName("sextant upgrade image: rollout set, wait for every node on the new image, retiring set")
class UpgradeImageCommandTest {
    private static final String A = "20261101.120000";
    private static final String B = "20261203.090000";
    private static final Pattern JSON = Pattern.compile("\"json\"\\s*:\\s*\"([^\"]+)\"");

    @TempDir
    Path dir;

    private RunningJoinService join;
    private Path inForce;
    private Path newSet;
    private Path publicKey;
    private Path privateKey;

    @BeforeEach
    void cluster() throws Exception {
        join = new RunningJoinService(true);
        join.bind("cp-0", "aa01", "control-plane");
        join.bind("worker-0", "bb01", "worker");
        join.attested("cp-0", Instant.now(), A);
        join.attested("worker-0", Instant.now(), A);
        publicKey = join.cluster.measurementsPublicKey;
        privateKey = Files.writeString(dir.resolve("measurements-key.pem"), pem(new JcaPKCS8Generator(join.cluster.signingKey.getPrivate(), null)));
        inForce = dir.resolve("in-force.json");
        Files.write(inForce, new MeasurementSet(5, Variant.QEMU_VTPM, List.of(new ImageMeasurements(A, image((byte) 0))), List.of()).toJson());
        MeasurementsFile.sign(inForce, Files.readString(privateKey));
        newSet = Files.write(dir.resolve("new.json"), MeasurementSet.of(1, image((byte) 0x0b), B).toJson());
    }

    @AfterEach
    void stop() throws Exception {
        if (join != null) {
            join.close();
        }
    }

    /** An image's PCRs: 4, 9 and 11 at {@code uki} (zero is the swtpm's own, image A), 12 and 13 zero, 15 zero before the lock. */
    private static Measurements image(byte uki) {
        TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
        for (int pcr : new int[]{4, 9, 11}) {
            byte[] value = new byte[32];
            Arrays.fill(value, uki);
            pcrs.put(pcr, new ExpectedValue(value, false));
        }
        for (int pcr : new int[]{12, 13, 15}) {
            pcrs.put(pcr, new ExpectedValue(new byte[32], false));
        }
        return new Measurements(Variant.QEMU_VTPM, pcrs);
    }

    private Run upgrade(String... extra) {
        List<String> args = new ArrayList<>(List.of("upgrade", "image", "--measurements", newSet.toString(), "--in-force", inForce.toString(),
                "--measurements-key", publicKey.toString(), "--signing-key", privateKey.toString(), "--endpoint", join.endpoint(),
                "--master-secret", join.masterSecretFile.toString(), "--ek-ca", join.ekCaFile.toString(), "--poll", "1"));
        args.addAll(List.of(extra));
        return RunningJoinService.sextant(args.toArray(String[]::new));
    }

    /** The set every join service holds in force, as etcd has it (the service's first set, version 0, before any was published). */
    private Optional<MeasurementSet> setInEtcd() throws Exception {
        Optional<String> value = join.admin.get(RunningJoinService.V1 + "measurements/set");
        if (value.isEmpty()) {
            return Optional.empty();
        }
        Matcher m = JSON.matcher(value.get());
        assertTrue(m.find(), value.get());
        return Optional.of(MeasurementSet.parse(Base64.getDecoder().decode(m.group(1))));
    }

    private static List<String> admitted(MeasurementSet set) {
        return set.images().stream().map(ImageMeasurements::imageVersion).toList();
    }

    private static List<String> retired(MeasurementSet set) {
        return set.retired().stream().map(ImageMeasurements::imageVersion).toList();
    }

    private void awaitSetVersion(long version) throws Exception {
        Instant deadline = Instant.now().plusSeconds(30);
        while (setInEtcd().map(MeasurementSet::version).orElse(0L) < version) {
            assertTrue(Instant.now().isBefore(deadline), "set version " + version + " never reached etcd");
            Thread.sleep(100);
        }
    }

    @Test
    @DisplayName("the whole flow: the rollout set (A and B, version 6) is published; each node is printed once as it attests on B; then the retiring set (B, A retired, version 7) is in force in etcd and in the operator's file")
    void wholeFlow() throws Exception {
        CompletableFuture<Run> running = CompletableFuture.supplyAsync(() -> upgrade("--timeout", "1"));
        awaitSetVersion(6);
        assertEquals(List.of(A, B), admitted(setInEtcd().orElseThrow()));
        Thread.sleep(1500); // a poll or two sees both nodes on A
        join.attested("cp-0", Instant.now(), B);
        Thread.sleep(1500);
        join.attested("worker-0", Instant.now(), B);
        Run r = running.get(60, TimeUnit.SECONDS);

        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("cp-0: " + A + " -> " + B + "\n"), r.out());
        assertTrue(r.out().contains("worker-0: " + A + " -> " + B + "\n"), r.out());
        assertEquals(1, r.out().split("cp-0: ", -1).length - 1, "cp-0 printed more than once:\n" + r.out());
        assertTrue(r.out().contains("retired " + A), r.out());
        MeasurementSet inEtcd = setInEtcd().orElseThrow();
        assertEquals(7, inEtcd.version());
        assertEquals(List.of(B), admitted(inEtcd));
        assertEquals(List.of(A), retired(inEtcd));
        MeasurementSet file = MeasurementsFile.verifySet(inForce, Files.readString(publicKey));
        assertEquals(List.of(7L, List.of(B), List.of(A)), List.of(file.version(), admitted(file), retired(file)), "the operator's in-force file is the retiring set");
        assertTrue(Files.exists(dir.resolve("in-force.rollout-6.json")) && Files.exists(dir.resolve("in-force.retiring-7.json")), r.out());
    }

    @Test
    @DisplayName("--no-wait publishes the rollout set and exits; a second run finds the set in force admitting B, publishes nothing new before the nodes are there, and retires A")
    void resumes() throws Exception {
        Run first = upgrade("--no-wait");
        assertEquals(0, first.exit(), first.out() + first.err());
        assertEquals(6, setInEtcd().orElseThrow().version());
        join.attested("cp-0", Instant.now(), B);
        join.attested("worker-0", Instant.now(), B);

        Run second = upgrade("--timeout", "1");

        assertEquals(0, second.exit(), second.out() + second.err());
        assertTrue(second.out().startsWith("the set in force (version 6) admits image " + B + " already: resuming"), second.out());
        assertFalse(second.out().contains("rollout set"), "the rollout set was published again:\n" + second.out());
        MeasurementSet inEtcd = setInEtcd().orElseThrow();
        assertEquals(7, inEtcd.version());
        assertEquals(List.of(A), retired(inEtcd));
    }

    @Test
    @DisplayName("a revoked node is ignored with a note: the rollout finishes without it")
    void revokedIgnored() throws Exception {
        join.nodes.revoke("worker-0", "bb01", "disk stolen", "operator");
        join.attested("cp-0", Instant.now(), B);
        Run r = upgrade("--timeout", "1");

        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("worker-0: revoked; ignored"), r.out());
        assertEquals(List.of(A), retired(setInEtcd().orElseThrow()));
    }

    @Test
    @DisplayName("nodes not on B at the timeout: NOT DONE naming them, exit 1, nothing retired (the set in force still admits A and B)")
    void timeout() throws Exception {
        join.attested("cp-0", Instant.now(), B);
        Run r = upgrade("--timeout", "0.05");

        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("NOT DONE: not attested on image " + B + " within 0.05 min: worker-0; nothing was retired"), r.out());
        MeasurementSet inEtcd = setInEtcd().orElseThrow();
        assertEquals(List.of(A, B), admitted(inEtcd));
        assertEquals(List.of(), retired(inEtcd));
        MeasurementSet file = MeasurementsFile.verifySet(inForce, Files.readString(publicKey));
        assertEquals(List.of(6L, List.of(A, B)), List.of(file.version(), admitted(file)), "the operator's in-force file is the rollout set");
    }

    @Test
    @DisplayName("a NEW.json that lists two images is refused (exit 2) before anything is published")
    void twoImagesRefused() throws Exception {
        Files.write(newSet, new MeasurementSet(1, Variant.QEMU_VTPM,
                List.of(new ImageMeasurements(B, image((byte) 0x0b)), new ImageMeasurements("20261204.090000", image((byte) 0x0c))), List.of()).toJson());
        Run r = upgrade("--timeout", "0.02");

        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--measurements " + newSet + ": admits 2 images, not one"), r.err());
        assertEquals(0L, setInEtcd().orElseThrow().version(), "a set was published: etcd holds another than the service's first");
    }

    @Test
    @DisplayName("attack: an in-force file not signed by the cluster's key (forged, to smuggle an image into the rollout set) is refused (exit 2) before anything is published")
    void unsignedInForceRefused() throws Exception {
        KeyPair other = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Files.write(inForce, new MeasurementSet(5, Variant.QEMU_VTPM, List.of(new ImageMeasurements(A, image((byte) 0)),
                new ImageMeasurements("20260101.000000", image((byte) 0x66))), List.of()).toJson());
        MeasurementsFile.sign(inForce, pem(new JcaPKCS8Generator(other.getPrivate(), null)));
        Run r = upgrade("--timeout", "0.02"); // a short wait: were the file taken, the run would end here, not hang

        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--in-force " + inForce + ": "), r.err());
        assertTrue(r.err().contains("nothing was published"), r.err());
        assertEquals(0L, setInEtcd().orElseThrow().version(), "a set was published: etcd holds another than the service's first");
        assertFalse(Files.exists(dir.resolve("in-force.rollout-6.json")));
    }

    private static String pem(Object o) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }
}
