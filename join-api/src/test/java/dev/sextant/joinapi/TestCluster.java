package dev.sextant.joinapi;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.policy.MeasurementsKey;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.testkit.ScratchDirs;
import dev.sextant.joinapi.binding.InMemoryBindingStoreDouble;
import dev.sextant.keys.KeyDerivation;
import dev.sextant.joinapi.measurements.PublishedSetWatcher;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Everything a join service needs on disk, in a temp directory: a cluster CA (EC P-256, as k3s
 * makes it), the measurement salt, a control-plane PKI directory and what a control plane's join service
 * hands a joining control plane (the master secret files, a signed measurement set, an EK CA bundle);
 * plus the KMS and Kubernetes API test doubles. Its properties keep the bindings in the in-memory store
 * double.
 */
public final class TestCluster implements AutoCloseable {
    public final Path dir;
    final X509Certificate ca;
    final byte[] salt = "0123456789abcdef0123456789abcdef".getBytes();
    public final KubeApiDouble kube = new KubeApiDouble();
    public final FakeKeyService kms;
    public final byte[] masterSecret = random(32);
    public final byte[] masterSalt = random(32);
    /** The signed measurement set's files, as the service is configured with them. */
    public final Path measurements;
    public final Path measurementsPublicKey;
    public final Path ekCa;
    private final Measurements measurementSet;
    private final String signingKeyPem;
    /** The key the cluster's measurements are signed with, as init made it. */
    public final KeyPair signingKey;

    public TestCluster() {
        try {
            dir = Files.createTempDirectory("sextant-join-test");
            KeyPair caKey = Csrs.ecKey();
            ca = selfSigned(caKey, "CN=k3s-client-ca@1700000000");
            Files.writeString(dir.resolve("ca.crt"), pem(ca));
            // PKCS#8, as k3s writes its CA keys (JcaPEMWriter would write SEC1 without the curve).
            Files.writeString(dir.resolve("ca.key"), pem(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(caKey.getPrivate(), null)));
            Files.write(dir.resolve("measurementSalt"), salt);
            Path pki = Files.createDirectories(dir.resolve("pki/etcd"));
            Files.writeString(pki.resolve("ca.key"), "etcd ca key (test)");
            Files.writeString(dir.resolve("pki/sa.pub"), "sa pub (test)");
            Path kmsDir = Files.createDirectories(dir.resolve("kms"));
            Files.write(kmsDir.resolve("mastersecret"), masterSecret);
            Files.write(kmsDir.resolve("salt"), masterSalt);
            measurements = Files.createDirectories(dir.resolve("join-measurements")).resolve("measurements.json");
            TreeMap<Integer, ExpectedValue> pcrs = new TreeMap<>();
            for (int pcr : new int[]{4, 9, 11, 12, 13, 15}) {
                pcrs.put(pcr, new ExpectedValue(random(32), false));
            }
            measurementSet = new Measurements(Variant.QEMU_VTPM, pcrs);
            Files.write(measurements, measurementSet.toJson());
            KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            signingKey = signing;
            signingKeyPem = pem(signing.getPrivate());
            MeasurementsFile.sign(measurements, signingKeyPem);
            measurementsPublicKey = Files.writeString(dir.resolve("join-measurements.pub"), pem(signing.getPublic()));
            ekCa = Files.writeString(dir.resolve("join-ek-ca.pem"), pem(selfSigned(Csrs.ecKey(), "CN=test EK CA")));
            kms = new FakeKeyService();
        } catch (Exception e) {
            throw new IllegalStateException("setting up the test cluster", e);
        }
    }

    /** The operator publishes the same measurements as {@code version}, signed with the cluster's key. */
    public void publishMeasurements(long version) throws Exception {
        Files.write(measurements, MeasurementSet.of(version, measurementSet, "1").toJson());
        MeasurementsFile.sign(measurements, signingKeyPem);
    }

    /**
     * Publishes the same measurements as {@code version}, signed with {@code signing}'s private key, naming
     * {@code nextKey} as the next signing key when not null, and puts {@code configuredKey} where the service
     * reads its measurements public key: what whoever writes the join service's ConfigMaps can do.
     */
    public void publishMeasurements(long version, KeyPair signing, java.security.PublicKey nextKey,
                                    java.security.PublicKey configuredKey) throws Exception {
        MeasurementSet set = MeasurementSet.of(version, measurementSet, "1");
        if (nextKey != null) {
            set = set.withNextKey(MeasurementsKey.of(pem(nextKey)));
        }
        Files.write(measurements, set.toJson());
        MeasurementsFile.sign(measurements, pem(signing.getPrivate()));
        Files.writeString(measurementsPublicKey, pem(configuredKey));
    }

    /** The cluster ID its join service derives: the KMS double's measurement secret over this cluster's salt. */
    public byte[] clusterId() {
        return KeyDerivation.clusterId(FakeKeyService.keyFor(KeyDerivation.MEASUREMENT_SECRET), salt);
    }

    /** The operator's set in force becomes {@code set} (unversioned), signed with the cluster's key. */
    public void useMeasurements(Measurements set) throws Exception {
        Files.write(measurements, set.toJson());
        MeasurementsFile.sign(measurements, signingKeyPem);
    }

    /** The EK CA bundle becomes {@code cas}: the TPMs the service trusts are theirs. */
    public void trustEkCas(X509Certificate... cas) throws IOException {
        StringBuilder bundle = new StringBuilder();
        for (X509Certificate ca : cas) {
            bundle.append(pem(ca));
        }
        Files.writeString(ekCa, bundle);
    }

    public Map<String, String> properties() {
        Map<String, String> p = new HashMap<>();
        p.put(JoinServiceConfig.ATLS_ENABLED, "false");
        p.put(JoinServiceConfig.KMS_SOCKET, kms.socket().toString());
        p.put(JoinServiceConfig.KMS_DEADLINE, "2s");
        p.put(JoinServiceConfig.KUBERNETES_BASE_PATH, kube.url());
        p.put(JoinServiceConfig.API_SERVER_ENDPOINT, "10.0.0.1:6443");
        p.put(JoinServiceConfig.KUBERNETES_VERSION, "v1.31.4+k3s1");
        p.put(JoinServiceConfig.MEASUREMENT_SALT_FILE, dir.resolve("measurementSalt").toString());
        p.put(JoinServiceConfig.CA_CERT_FILE, dir.resolve("ca.crt").toString());
        p.put(JoinServiceConfig.CA_KEY_FILE, dir.resolve("ca.key").toString());
        p.put(JoinServiceConfig.CONTROL_PLANE_DIR, dir.resolve("pki").toString());
        p.put(JoinServiceConfig.MASTER_SECRET_FILE, dir.resolve("kms/mastersecret").toString());
        p.put(JoinServiceConfig.MASTER_SECRET_SALT_FILE, dir.resolve("kms/salt").toString());
        p.put(JoinServiceConfig.MEASUREMENTS_FILE, measurements.toString());
        p.put(JoinServiceConfig.MEASUREMENTS_PUBLIC_KEY_FILE, measurementsPublicKey.toString());
        p.put(JoinServiceConfig.EK_CA_FILE, ekCa.toString());
        // The rules' tests keep bindings in the in-memory double; TestClusterStore swaps in real etcd.
        p.put(InMemoryBindingStoreDouble.PROPERTY, "true");
        // Re-attestation has its own tests; here it would compete for a duty in etcd and ask the KMS.
        p.put("sextant.join.reattest.enabled", "false");
        // No etcd to poll for the published set: TestClusterStore switches the watcher on with the real store.
        p.put(PublishedSetWatcher.ENABLED, "false");
        return p;
    }

    /** The same cluster as a kubeadm join service sees it: kubelet certificates signed with ca.key. */
    Map<String, String> kubeadmProperties() {
        Map<String, String> p = properties();
        p.put(JoinServiceConfig.KUBERNETES_DISTRIBUTION, "kubeadm");
        return p;
    }

    private static byte[] random(int bytes) {
        byte[] value = new byte[bytes];
        new SecureRandom().nextBytes(value);
        return value;
    }

    private static X509Certificate selfSigned(KeyPair key, String subject) throws Exception {
        X500Name name = new X500Name(subject);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(3650))), name, key.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
    }

    static String pem(Object o) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        }
        return s.toString();
    }

    @Override
    public void close() throws Exception {
        kms.close();
        kube.close();
        ScratchDirs.delete(dir);
    }
}
