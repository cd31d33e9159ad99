package dev.sextant.nodeboot.deploy;

import dev.sextant.etcd.process.EtcdMemberConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The files of a control plane's etcd member: its command line, its certificates, its unit")
class ControlPlaneEtcdFilesTest {
    @TempDir
    Path dir;

    private final byte[] secret = bytes(1);
    private final byte[] salt = bytes(2);

    private static byte[] bytes(int seed) {
        byte[] b = new byte[32];
        new SecureRandom(new byte[]{(byte) seed}).nextBytes(b);
        return b;
    }

    private ControlPlaneEtcd etcd() {
        return new ControlPlaneEtcd(settings("", 0, 0));
    }

    private NodeLocalSettings settings(String advertiseHost, int advertisePeerPort, int advertiseClientPort) {
        return new NodeLocalSettings(dir.resolve("services"), Path.of("/run/sextant/kms/kms.sock"), 9090, "", Duration.ofSeconds(5), 2379, 2380, advertiseHost,
                advertisePeerPort, advertiseClientPort, "demo", dir.resolve("hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT);
    }

    private EtcdTlsFiles prepared() throws Exception {
        ControlPlaneEtcd etcd = etcd();
        return etcd.prepare(etcd.create("cp-0"), secret, salt);
    }

    private List<String> arguments() throws Exception {
        String line = EtcdUnitAsProcess.environmentFile(etcd().environmentFile()).get(ControlPlaneEtcd.ARGS_VARIABLE);
        return Arrays.asList(line.split(" "));
    }

    private static String value(List<String> args, String flag) {
        return args.stream().filter(a -> a.startsWith(flag + "=")).map(a -> a.substring(flag.length() + 1)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + flag + " in " + args));
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(Files.readAllBytes(pem)));
    }

    @Test
    @DisplayName("etcd's command line: TLS-only URLs, client certificates of the CA required on both ports, the member's name, its data on the state disk, a new cluster of one")
    void commandLine() throws Exception {
        prepared();
        List<String> args = arguments();
        Path services = dir.resolve("services");
        assertEquals("cp-0", value(args, "--name"));
        assertEquals(services.resolve("etcd/data").toString(), value(args, "--data-dir"));
        for (String urls : List.of("--listen-client-urls", "--advertise-client-urls", "--listen-peer-urls", "--initial-advertise-peer-urls")) {
            assertTrue(value(args, urls).startsWith("https://"), urls + " is TLS: " + value(args, urls));
        }
        assertEquals("https://0.0.0.0:2379", value(args, "--listen-client-urls"));
        assertEquals("https://etcd-cp-0.internal.demo:2379", value(args, "--advertise-client-urls"));
        assertEquals("https://0.0.0.0:2380", value(args, "--listen-peer-urls"));
        assertEquals("https://etcd-cp-0.internal.demo:2380", value(args, "--initial-advertise-peer-urls"));
        assertEquals("cp-0=https://etcd-cp-0.internal.demo:2380", value(args, "--initial-cluster"));
        assertEquals("new", value(args, "--initial-cluster-state"));
        assertTrue(args.containsAll(List.of("--client-cert-auth", "--peer-client-cert-auth", "--enable-v2=false", "--auto-tls=false",
                "--peer-auto-tls=false")), args.toString());
        Path ca = services.resolve("etcd/pki/member/ca.crt");
        assertEquals(ca.toString(), value(args, "--trusted-ca-file"));
        assertEquals(ca.toString(), value(args, "--peer-trusted-ca-file"));
        assertEquals(ControlPlaneEtcd.ca(secret, salt).certificate(), certificate(ca), "the CA derived from the master secret");
        assertEquals(ControlPlaneEtcd.clusterToken(ControlPlaneEtcd.ca(secret, salt)), value(args, "--initial-cluster-token"));
        assertFalse(ControlPlaneEtcd.clusterToken(ControlPlaneEtcd.ca(bytes(3), salt)).equals(value(args, "--initial-cluster-token")),
                "another master secret, another cluster token");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(services.resolve("etcd/data"))));
    }

    @Test
    @DisplayName("the CA is the KMS's data key etcd-ca of the master secret; member and client certificates chain to it, with the member's names, keys 0600")
    void certificates() throws Exception {
        EtcdTlsFiles join = prepared();
        List<String> args = arguments();
        EtcdCa derived = new EtcdCa(new dev.sextant.keys.KeyDerivation(secret, salt).dataKey("etcd-ca", 32), new SecureRandom());
        assertEquals(derived.certificate(), ControlPlaneEtcd.ca(secret, salt).certificate(), "the same derivation as the KMS's for id etcd-ca");
        X509Certificate member = certificate(Path.of(value(args, "--cert-file")));
        X509Certificate client = certificate(join.certFile());
        member.verify(derived.certificate().getPublicKey());
        client.verify(derived.certificate().getPublicKey());
        assertThrows(SignatureException.class, () -> member.verify(ControlPlaneEtcd.ca(bytes(3), salt).certificate().getPublicKey()),
                "a CA of another master secret did not issue it");
        Set<String> sans = member.getSubjectAlternativeNames().stream().map(n -> n.get(1).toString()).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(sans.containsAll(Set.of("etcd-cp-0.internal.demo", "localhost", "127.0.0.1")), sans.toString());
        assertEquals(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"), member.getExtendedKeyUsage(), "server and client (peers)");
        assertEquals(List.of("1.3.6.1.5.5.7.3.2"), client.getExtendedKeyUsage());
        assertEquals("CN=join-service", client.getSubjectX500Principal().getName());
        for (Path key : List.of(Path.of(value(args, "--key-file")), Path.of(value(args, "--peer-key-file")), join.keyFile())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)), key.toString());
        }
        assertEquals(Map.of("name", "cp-0", "cluster", "demo"), Map.of("name", etcd().identity().orElseThrow().memberName(),
                "cluster", etcd().identity().orElseThrow().clusterName()), "the member's names are kept for every later start");
    }

    @Test
    @DisplayName("the member advertises what sextant.services.etcd-advertise-* say (the URLs a join request names), its certificate names that host, and it still binds every address on the listen ports")
    void advertisedAsSettingsSay() throws Exception {
        NodeLocalSettings settings = settings("10.0.0.5", 32380, 32379);
        ControlPlaneEtcd etcd = new ControlPlaneEtcd(settings);
        etcd.prepare(etcd.create("cp-0"), secret, salt);
        List<String> args = arguments();
        EtcdAdvertisedUrls urls = EtcdAdvertisedUrls.of(settings, "cp-0", "demo");
        assertEquals(new EtcdAdvertisedUrls("https://10.0.0.5:32380", "https://10.0.0.5:32379"), urls);
        assertEquals(urls.peerUrl(), value(args, "--initial-advertise-peer-urls"));
        assertEquals(urls.clientUrl(), value(args, "--advertise-client-urls"));
        assertEquals("cp-0=" + urls.peerUrl(), value(args, "--initial-cluster"));
        assertEquals("https://0.0.0.0:2380", value(args, "--listen-peer-urls"));
        assertEquals("https://0.0.0.0:2379", value(args, "--listen-client-urls"));
        Set<String> sans = certificate(Path.of(value(args, "--cert-file"))).getSubjectAlternativeNames().stream()
                .map(n -> n.get(1).toString()).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(sans.containsAll(Set.of("10.0.0.5", "etcd-cp-0.internal.demo")), sans.toString());

        assertEquals(new EtcdAdvertisedUrls("https://etcd-cp-0.internal.demo:2380", "https://etcd-cp-0.internal.demo:2379"),
                EtcdAdvertisedUrls.of(settings("", 0, 0), "cp-0", "demo"), "by default its DNS name and the listen ports");
        assertEquals("https://[fd00::5]:2380", EtcdAdvertisedUrls.of(settings("fd00::5", 0, 0), "cp-0", "demo").peerUrl());
        ControlPlaneEtcd named = new ControlPlaneEtcd(settings("etcd.example.test", 0, 0));
        Files.delete(dir.resolve("services/etcd/member.properties"));
        named.prepare(named.create("cp-0"), secret, salt);
        assertTrue(certificate(Path.of(value(arguments(), "--cert-file"))).getSubjectAlternativeNames().stream()
                .anyMatch(n -> n.get(1).equals("etcd.example.test")), "a peer checks the name it dialled");
    }

    @Test
    @DisplayName("a member.properties from an init that did not keep the initial cluster is read as that init's member: a new cluster of one under the peer URL the settings advertise")
    void memberFileWithoutInitialCluster() throws Exception {
        Path file = Files.createDirectories(dir.resolve("services/etcd")).resolve("member.properties");
        Files.writeString(file, "name=cp-0\ncluster=demo\n");
        EtcdMemberIdentity identity = etcd().identity().orElseThrow();
        assertEquals(EtcdMemberIdentity.first("cp-0", "demo", "https://etcd-cp-0.internal.demo:2380"), identity);
        etcd().prepare(identity, secret, salt);
        assertEquals("new", value(arguments(), "--initial-cluster-state"));
        assertEquals("cp-0=https://etcd-cp-0.internal.demo:2380", value(arguments(), "--initial-cluster"));
    }

    @Test
    @DisplayName("an argument systemd would interpret in the environment file (space, quote, '$', '%', backslash) is refused, naming it")
    void environmentFileRefusesInterpretedCharacters() {
        for (String bad : List.of("--data-dir=/var/lib/my data", "--name=\"x\"", "--name=$HOME", "--name=%H", "--name=a\\b")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ControlPlaneEtcd.environmentFile(List.of("--name=cp-0", bad)), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertEquals(ControlPlaneEtcd.ARGS_VARIABLE + "=--name=cp-0 --data-dir=/d",
                ControlPlaneEtcd.environmentFile(List.of("--name=cp-0", "--data-dir=/d")).lines().filter(l -> !l.startsWith("#"))
                        .findFirst().orElseThrow());
    }

    @Test
    @DisplayName("the image's unit runs /usr/bin/etcd with the variable the deployer writes, from the file it writes, is not enabled, and the join unit starts after it")
    void unitMatchesTheDeployer() throws Exception {
        Map<String, String> unit = EtcdUnitAsProcess.unit();
        ControlPlaneEtcd image = new ControlPlaneEtcd(new NodeLocalSettings(Path.of(EtcdUnitAsProcess.IMAGE_SERVICES_DIR), Path.of("/run/sextant/kms/kms.sock"), 9090, "",
                Duration.ofMinutes(5), 2379, 2380, "", 0, 0, "sextant", Path.of("/etc/hosts"), EtcdMemberConfig.DEFAULT_HEARTBEAT));
        assertEquals(image.environmentFile().toString(), unit.get("EnvironmentFile"));
        assertEquals(image.environmentFile().toString(), unit.get("ConditionPathExists"));
        assertEquals("/usr/bin/etcd $" + ControlPlaneEtcd.ARGS_VARIABLE, unit.get("ExecStart"), "unquoted: split at whitespace");
        assertEquals(image.dataDir().toString(), unit.get("ReadWritePaths"));
        assertEquals("notify", unit.get("Type"));
        assertEquals("on-failure", unit.get("Restart"));
        assertFalse(unit.containsKey("WantedBy"), "started by the bootstrapper only");
        Path units = EtcdUnitAsProcess.UNIT_FILE.getParent();
        String joinUnit = Files.readString(units.resolve("sextant-join.service"));
        assertTrue(joinUnit.lines().anyMatch(l -> l.startsWith("After=") && l.contains(ControlPlaneEtcd.UNIT)), joinUnit);
        Path etc = units.resolve("../../../../etc");
        assertTrue(Files.readString(etc.resolve("systemd/system-preset/10-sextant.preset")).lines().anyMatch("disable etcd.service"::equals));
        assertEquals(Path.of("/dev/null"), Files.readSymbolicLink(etc.resolve("systemd/system/etcd.service")), "Debian's own unit is masked");
        assertEquals(Path.of("../run/sextant/hosts"), Files.readSymbolicLink(etc.resolve("hosts")), "the hosts file is writable on a read-only root");
    }
}
