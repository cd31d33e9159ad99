package dev.sextant.e2e.k3s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.google.protobuf.ByteString;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestPki;
import dev.sextant.clusterservices.ClusterServices;
import dev.sextant.clusterservices.ClusterServicesApplier;
import dev.sextant.clusterservices.EtcdClientCredential;
import dev.sextant.clusterservices.InitNodeBinding;
import dev.sextant.clusterservices.ServicesConfig;
import dev.sextant.clusterservices.upgrade.RolloutSleeper;
import dev.sextant.clusterservices.upgrade.ServicesUpgrade;
import dev.sextant.clusterservices.upgrade.UpgradeOutcome;
import dev.sextant.clusterservices.upgrade.UpgradeRequest;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdCredential;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.JoinServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import io.kubernetes.client.util.Config;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The KMS and join service on a real k3s (Testcontainers): the manifests applied through the API,
 * an attested client (software TPM) joining through the NodePort, its bootstrap token Secret checked
 * and authenticated by the API server, then an upgrade to a broken image that must roll back.
 *
 * <p>Prerequisites: (1) a k3s image, named with {@code -Dsextant.k3s.image} or {@code SEXTANT_K3S_IMAGE}
 * (e.g. {@code rancher/k3s:v1.31.4-k3s1}), present in the local Docker or pullable; (2) a Docker daemon
 * that Testcontainers reaches; (3) the Sextant images in the local Docker, loaded into k3s's containerd
 * ({@code -Dsextant.k3s.join-image}, {@code -Dsextant.k3s.kms-image}, default the Jib names
 * {@code sextant/join-service:0.1.0-SNAPSHOT} and {@code sextant/kms:0.1.0-SNAPSHOT}:
 * {@code mvn -pl join-api,kms jib:dockerBuild}). Without (1) every test is skipped with that reason (no
 * k3s image is pullable on the project's machines: .ci/allowed-skips). Once a k3s image is named the
 * test was asked for, so any other missing prerequisite fails it, naming each one. Offline, also set
 * {@code TESTCONTAINERS_RYUK_DISABLED=true} (java-stack.md §5: Ryuk's image cannot be pulled).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("k3s end-to-end: cluster services applied, an attested node joins through the NodePort, a broken upgrade rolls back")
class K3sClusterServicesTest {
    private static final int JOIN_NODE_PORT = 30090;

    @TempDir
    Path dir;

    private K3sContainer k3s;
    private ApiClient admin;
    private final TestPki ekCa = new TestPki("sextant-k3s-e2e-ek-ca");
    private final SoftwareTpmAttester node = new SoftwareTpmAttester(ekCa, SoftwareTpmOptions.defaults());
    private String joinImage;
    private String kmsImage;

    /** Why every test is skipped (no k3s image named), or null when the test was asked for. */
    private String skipReason;

    @BeforeAll
    void startK3s() throws Exception {
        String image = setting("sextant.k3s.image", "SEXTANT_K3S_IMAGE", null);
        if (image == null) {
            skipReason = "no k3s image named: set -Dsextant.k3s.image or SEXTANT_K3S_IMAGE (none is pullable on the project's machines)";
            System.out.println("K3sClusterServicesTest skipped: " + skipReason);
            return;
        }
        // The services take images by digest (name@sha256:...): what the local Docker knows the pushed image by.
        joinImage = setting("sextant.k3s.join-image", "SEXTANT_K3S_JOIN_IMAGE", "sextant/join-service:0.1.0-SNAPSHOT");
        kmsImage = setting("sextant.k3s.kms-image", "SEXTANT_K3S_KMS_IMAGE", "sextant/kms:0.1.0-SNAPSHOT");
        // Asked for explicitly: a missing prerequisite is a failure, not a skip.
        List<String> missing = missingPrerequisites(image);
        if (!missing.isEmpty()) {
            throw new AssertionError("k3s image " + image + " was named, but this machine lacks: " + String.join("; ", missing));
        }
        DockerClient docker = DockerClientFactory.instance().client();
        k3s = new K3sContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("rancher/k3s"));
        k3s.addExposedPorts(JOIN_NODE_PORT);
        k3s.start();
        joinImage = loadIntoK3s(docker, joinImage);
        kmsImage = loadIntoK3s(docker, kmsImage);
        admin = Config.fromConfig(new StringReader(k3s.getKubeConfigYaml()));
    }

    /** Each test reports itself skipped, with the reason, rather than the class vanishing from the counts. */
    @BeforeEach
    void requireK3s() {
        Assumptions.assumeTrue(skipReason == null, skipReason);
    }

    /** Each prerequisite other than the k3s image's name that this machine lacks, named; empty when it can run. */
    private List<String> missingPrerequisites(String image) {
        DockerClient docker;
        try {
            if (!DockerClientFactory.instance().isDockerAvailable()) {
                return List.of("a Docker daemon that Testcontainers reaches (DOCKER_HOST or /var/run/docker.sock), needed to run "
                        + image + " and to load " + joinImage + " and " + kmsImage);
            }
            docker = DockerClientFactory.instance().client();
        } catch (RuntimeException e) {
            // Reachable, but Testcontainers' own start-up (its check image) failed against it.
            return List.of("a Docker daemon that Testcontainers can use (" + e.getMessage() + ")");
        }
        List<String> missing = new ArrayList<>();
        if (!presentOrPulled(docker, image)) {
            missing.add("the k3s image " + image + " (neither in the local Docker nor pullable)");
        }
        for (String sextantImage : new String[] {joinImage, kmsImage}) {
            if (!present(docker, sextantImage)) {
                missing.add("the Sextant image " + sextantImage + " in the local Docker"
                        + " (build it: mvn -pl join-api,kms jib:dockerBuild, or docker load the Jib tar)");
            }
        }
        return missing;
    }

    @AfterAll
    void stopK3s() {
        if (k3s != null) {
            k3s.stop();
        }
    }

    @Test
    @Order(1)
    @DisplayName("the rendered services apply, both DaemonSets become available, and a re-apply changes nothing")
    void servicesComeUp() throws Exception {
        ClusterServicesApplier.ApplyResult first = ClusterServicesApplier.apply(admin, ClusterServices.render(config(joinImage, kmsImage)));
        assertEquals(first.objects().size(), first.count(ClusterServicesApplier.Action.CREATED));
        UpgradeOutcome rollout = upgrade().upgrade(new UpgradeRequest(joinImage, kmsImage, Optional.empty(), Duration.ofMinutes(4), false));
        assertEquals(UpgradeOutcome.Result.SUCCEEDED, rollout.result(), rollout.message());

        ClusterServicesApplier.ApplyResult again = ClusterServicesApplier.apply(admin, ClusterServices.render(config(joinImage, kmsImage)));
        assertEquals(again.objects().size(), again.count(ClusterServicesApplier.Action.UNCHANGED));
    }

    @Test
    @Order(2)
    @DisplayName("an attested node joins through the NodePort; its bootstrap token Secret exists and the API server accepts the token")
    void attestedNodeJoins() throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress(k3s.getHost(), k3s.getMappedPort(JOIN_NODE_PORT))
                .sslContext(AtlsContexts.client(OwnAttestation.by(node), ServerVerification.insecureAcceptAnyServer())).build();
        IssueJoinTicketResponse ticket;
        try {
            ticket = JoinServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS)
                    .issueJoinTicket(IssueJoinTicketRequest.newBuilder().setDiskUuid(UUID.randomUUID().toString())
                            .setNodeName("worker-e2e").setKubeletCsr(ByteString.copyFrom(kubeletCsr("worker-e2e"))).build());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertEquals(32, ticket.getStateDiskKey().size());
        // k3s plan: the K10 token ends in the bootstrap token "<id>.<secret>".
        assertEquals(IssueJoinTicketResponse.KubernetesCase.K3S, ticket.getKubernetesCase());
        String token = ticket.getK3S().getToken().substring(ticket.getK3S().getToken().indexOf("::") + 2);
        assertTrue(token.matches("[a-z0-9]{6}\\.[a-z0-9]{16}"), token);

        V1Secret secret = new CoreV1Api(admin).readNamespacedSecret("bootstrap-token-" + token.substring(0, 6), "kube-system").execute();
        assertEquals("bootstrap.kubernetes.io/token", secret.getType());
        V1TokenReviewStatus review = new AuthenticationV1Api(admin).createTokenReview(new V1TokenReview()
                .apiVersion("authentication.k8s.io/v1").kind("TokenReview").spec(new V1TokenReviewSpec().token(token)))
                .execute().getStatus();
        assertTrue(Boolean.TRUE.equals(review.getAuthenticated()), "the API server refused the bootstrap token: " + review.getError());
        assertEquals("system:bootstrap:" + token.substring(0, 6), review.getUser().getUsername());
    }

    @Test
    @Order(3)
    @DisplayName("an upgrade to a join service image that cannot run times out and rolls back to the working images")
    void brokenUpgradeRollsBack() throws Exception {
        String broken = "sextant/join-service:does-not-exist";
        UpgradeOutcome outcome = upgrade().upgrade(new UpgradeRequest(broken, kmsImage, Optional.empty(), Duration.ofSeconds(90), false));

        assertEquals(UpgradeOutcome.Result.ROLLED_BACK, outcome.result(), outcome.message());
        assertTrue(outcome.message().contains("sextant-join-service"), outcome.message());
        String now = new AppsV1Api(admin).readNamespacedDaemonSet(ClusterServices.JOIN_DAEMONSET, "kube-system").execute()
                .getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        assertEquals(joinImage, now);
        UpgradeOutcome settled = upgrade().upgrade(new UpgradeRequest(joinImage, kmsImage, Optional.empty(), Duration.ofMinutes(4), false));
        assertEquals(UpgradeOutcome.Result.SUCCEEDED, settled.result(), "the rolled-back services run again: " + settled.message());
    }

    private ServicesUpgrade upgrade() {
        return new ServicesUpgrade(admin, Clock.systemUTC(), RolloutSleeper.REAL, Duration.ofSeconds(2));
    }

    /** The k3s container is not a Sextant node: a stand-in init node whose name and disk nobody else may claim. */
    private static final InitNodeBinding INIT_NODE = new InitNodeBinding("000b" + "cd".repeat(32), "k3s-init-stand-in",
            List.of("0f2c1a8e-5d4b-4c3a-9b2e-1f0e9d8c7b6a"));

    private ServicesConfig config(String join, String kms) throws Exception {
        KeyPair signing = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path measurements = dir.resolve("measurements.json");
        if (!Files.exists(measurements)) {
            Files.write(measurements, node.measurements().toJson());
            MeasurementsFile.sign(measurements, pem(signing.getPrivate()));
            Files.writeString(dir.resolve("measurements.pub"), pem(signing.getPublic()));
            Files.write(dir.resolve("mastersecret"), random(32));
            Files.write(dir.resolve("salt"), random(32));
            Files.write(dir.resolve("measurementSalt"), random(32));
        }
        return new ServicesConfig(join, kms, Files.readAllBytes(measurements),
                Files.readAllBytes(MeasurementsFile.signatureFile(measurements)), Files.readString(dir.resolve("measurements.pub")),
                pem(ekCa.caCertificate()), Files.readAllBytes(dir.resolve("mastersecret")), Files.readAllBytes(dir.resolve("salt")),
                Files.readAllBytes(dir.resolve("measurementSalt")), k3s.getHost() + ":" + k3s.getMappedPort(6443), JOIN_NODE_PORT,
                INIT_NODE, etcdClient());
    }

    /**
     * A join service etcd client certificate of a CA of its own: no etcd member runs beside this k3s, so the
     * join service's init-node claim finds no store to answer it.
     */
    private static EtcdClientCredential etcdClient() throws Exception {
        EtcdCa ca = new EtcdCa(random(32), new SecureRandom());
        EtcdCredential client = ca.issueClient("join-service", java.time.Instant.now(), EtcdCa.DEFAULT_VALIDITY);
        return new EtcdClientCredential(2379, pem(ca.certificate()), pem(client.certificate()),
                pem(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(client.privateKey(), null))
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /** Imports the image into k3s's containerd and returns it by digest, as the services require. */
    private String loadIntoK3s(DockerClient docker, String image) throws Exception {
        Path tar = dir.resolve(image.replaceAll("[^A-Za-z0-9.]", "_") + ".tar");
        try (InputStream in = docker.saveImageCmd(image).exec()) {
            Files.copy(in, tar, StandardCopyOption.REPLACE_EXISTING);
        }
        k3s.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/" + tar.getFileName());
        var result = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/" + tar.getFileName());
        assertEquals(0, result.getExitCode(), "ctr images import " + image + ": " + result.getStderr());
        String name = image.contains("/") && image.substring(0, image.indexOf('/')).contains(".") ? image : "docker.io/" + image;
        // ctr images ls: REF TYPE DIGEST ...; the manifest digest the import recorded.
        var digest = k3s.execInContainer("sh", "-c", "ctr -n k8s.io images ls name==" + name + " | awk 'NR==2 {print $3}'");
        assertTrue(digest.getExitCode() == 0 && digest.getStdout().strip().startsWith("sha256:"),
                "ctr images ls " + name + ": " + digest.getStdout() + digest.getStderr());
        String repository = image.replaceFirst(":[^:/]+$", "");
        return repository + "@" + digest.getStdout().strip();
    }

    private static boolean presentOrPulled(DockerClient docker, String image) {
        if (present(docker, image)) {
            return true;
        }
        try {
            // Bounded: an unreachable registry otherwise retries for minutes (java-stack.md §5).
            return docker.pullImageCmd(image).start().awaitCompletion(3, TimeUnit.MINUTES) && present(docker, image);
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean present(DockerClient docker, String image) {
        try {
            docker.inspectImageCmd(image).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? fallback : v;
    }

    private static byte[] kubeletCsr(String nodeName) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair key = g.generateKeyPair();
        return new JcaPKCS10CertificationRequestBuilder(new X500Name("CN=system:node:" + nodeName + ",O=system:nodes"), key.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())).getEncoded();
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static String pem(Object o) throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
