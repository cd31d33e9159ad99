package dev.sextant.clusterservices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.clusterservices.ClusterServicesApplier.Action;
import dev.sextant.clusterservices.ClusterServicesApplier.ApplyResult;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Applying the rendered objects through the Kubernetes API (test double)")
class ClusterServicesApplierTest {
    private final KubeApiDouble kube = new KubeApiDouble();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        kube.close();
    }

    @Test
    @DisplayName("a first apply creates every object, readable back with its values")
    void firstApplyCreatesEverything() throws Exception {
        ServicesConfig config = new TestServices(dir).config();
        ApplyResult result = ClusterServicesApplier.apply(kube.client(), ClusterServices.render(config));
        assertEquals(15, result.objects().size());
        assertEquals(15, result.count(Action.CREATED));

        CoreV1Api core = new CoreV1Api(kube.client());
        assertArrayEquals(config.masterSecret(), core.readNamespacedSecret("sextant-master-secret", "kube-system").execute().getData().get("mastersecret"));
        V1ConfigMap joinConfig = core.readNamespacedConfigMap("join-config", "kube-system").execute();
        assertEquals(new String(config.measurementsJson()), joinConfig.getData().get("measurements.json"));
        assertArrayEquals(config.measurementSalt(), joinConfig.getBinaryData().get("measurementSalt"));
        assertEquals(TestServices.JOIN_IMAGE, new AppsV1Api(kube.client()).readNamespacedDaemonSet("sextant-join-service", "kube-system")
                .execute().getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
        assertEquals(List.of("create", "list", "delete"), new RbacAuthorizationV1Api(kube.client()).readNamespacedRole("sextant-join-service", "kube-system")
                .execute().getRules().get(0).getVerbs());
    }

    @Test
    @DisplayName("applying the same rendering again writes nothing")
    void reapplyingChangesNothing() throws Exception {
        List<KubernetesObject> rendered = ClusterServices.render(new TestServices(dir).config());
        ClusterServicesApplier.apply(kube.client(), rendered);
        int writes = kube.writes();

        ApplyResult again = ClusterServicesApplier.apply(kube.client(), rendered);

        assertEquals(15, again.count(Action.UNCHANGED));
        assertEquals(writes, kube.writes(), "no create, update or patch request on a re-apply");
    }

    @Test
    @DisplayName("a changed value updates that object only")
    void changedValueUpdatesOneObject() throws Exception {
        ServicesConfig config = new TestServices(dir).config();
        ClusterServicesApplier.apply(kube.client(), ClusterServices.render(config));
        ServicesConfig newKms = new ServicesConfig(config.joinServiceImage(), TestServices.KMS_IMAGE_V2,
                config.measurementsJson(), config.measurementsSignature(), config.measurementsPublicKeyPem(), config.ekCaPem(),
                config.masterSecret(), config.salt(), config.measurementSalt(), config.apiServerEndpoint(), config.joinNodePort(),
                config.initNode(), config.etcd());

        ApplyResult result = ClusterServicesApplier.apply(kube.client(), ClusterServices.render(newKms));

        assertEquals(1, result.count(Action.UPDATED));
        assertEquals(new ClusterServicesApplier.Applied("DaemonSet", "sextant-join-service", Action.UPDATED),
                result.objects().stream().filter(o -> o.action() == Action.UPDATED).findFirst().orElseThrow());
    }

    @Test
    @DisplayName("an API failure names the object, and applying again resumes where it stopped")
    void failureNamesTheObjectAndReapplyResumes() throws Exception {
        List<KubernetesObject> rendered = ClusterServices.render(new TestServices(dir).config());
        kube.failWhen("POST", "/apis/apps/v1/namespaces/kube-system/daemonsets");
        ApiException e = assertThrows(ApiException.class, () -> ClusterServicesApplier.apply(kube.client(), rendered));
        assertTrue(e.getMessage().contains("creating DaemonSet kube-system/sextant-join-service"), e.getMessage());
        assertEquals(500, e.getCode());

        kube.heal();
        ApplyResult resumed = ClusterServicesApplier.apply(kube.client(), rendered);
        assertEquals(13, resumed.count(Action.UNCHANGED), "the objects before the DaemonSet stay");
        assertEquals(2, resumed.count(Action.CREATED));
    }

    @Test
    @DisplayName("what the API server adds (defaults, status, its metadata) does not make an object look changed")
    void serverAddedFieldsDoNotCount() throws Exception {
        List<KubernetesObject> rendered = ClusterServices.render(new TestServices(dir).config());
        ClusterServicesApplier.apply(kube.client(), rendered);
        AppsV1Api apps = new AppsV1Api(kube.client());
        var ds = apps.readNamespacedDaemonSet("sextant-join-service", "kube-system").execute();
        ds.getSpec().revisionHistoryLimit(10).getTemplate().getSpec().dnsPolicy("ClusterFirst").getContainers().get(0)
                .terminationMessagePath("/dev/termination-log");
        ds.getMetadata().putAnnotationsItem("deprecated.daemonset.template.generation", "1");
        apps.replaceNamespacedDaemonSet("sextant-join-service", "kube-system", ds).execute();
        new DaemonSetController(kube.client()).rolledOut("sextant-join-service");

        ApplyResult again = ClusterServicesApplier.apply(kube.client(), rendered);

        assertEquals(15, again.count(Action.UNCHANGED));
    }

    @Test
    @DisplayName("an object someone edited (an extra container) is put back to the rendering")
    void driftIsRepaired() throws Exception {
        List<KubernetesObject> rendered = ClusterServices.render(new TestServices(dir).config());
        ClusterServicesApplier.apply(kube.client(), rendered);
        AppsV1Api apps = new AppsV1Api(kube.client());
        var ds = apps.readNamespacedDaemonSet("sextant-join-service", "kube-system").execute();
        ds.getSpec().getTemplate().getSpec().addContainersItem(new io.kubernetes.client.openapi.models.V1Container().name("sidecar").image("evil:1"));
        apps.replaceNamespacedDaemonSet("sextant-join-service", "kube-system", ds).execute();

        ApplyResult again = ClusterServicesApplier.apply(kube.client(), rendered);

        assertEquals(1, again.count(Action.UPDATED));
        assertEquals(List.of("join-service", "kms"), apps.readNamespacedDaemonSet("sextant-join-service", "kube-system").execute()
                .getSpec().getTemplate().getSpec().getContainers().stream().map(io.kubernetes.client.openapi.models.V1Container::getName).toList());
    }

    @Test
    @DisplayName("applying logs kinds and names, never the master secret")
    void logsNoSecret() throws Exception {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ClusterServicesApplier.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs = new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        try {
            ServicesConfig config = new TestServices(dir).config();
            ClusterServicesApplier.apply(kube.client(), ClusterServices.render(config));
            String all = logs.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .collect(java.util.stream.Collectors.joining("\n"));
            assertTrue(all.contains("Secret kube-system/sextant-master-secret: created"), all);
            assertTrue(!all.contains(java.util.Base64.getEncoder().encodeToString(config.masterSecret())), "master secret in the log");
            assertTrue(!all.contains(java.util.HexFormat.of().formatHex(config.masterSecret())), "master secret in the log");
        } finally {
            logger.detachAppender(logs);
        }
    }
}
