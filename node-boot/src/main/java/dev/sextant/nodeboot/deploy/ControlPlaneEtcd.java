package dev.sextant.nodeboot.deploy;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.etcd.pki.EtcdCa;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import dev.sextant.etcd.process.EtcdMemberConfig;
import dev.sextant.keys.KeyDerivation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This control plane's member of the cluster's etcd, run by the image's {@code sextant-etcd.service}: the
 * files that unit reads, all under the services directory on the encrypted state disk. At every start
 * (init and each reboot) the member's and the join service's certificates are issued afresh by the etcd CA
 * derived from the master secret kept there (that is their renewal), the member's DNS name is put in the
 * hosts file, and etcd's command line is written to {@link #environmentFile()} from {@link EtcdMemberConfig},
 * the one place that decides it. The data dir, {@code etcd/data}, is etcd's own and survives every reboot:
 * the control plane's data volume where it has one (node-boot's bring-up mounts it on this very directory
 * before etcd starts, so etcd's command line and the unit's one writable path stay the same), else a
 * directory of the state disk.
 */
public final class ControlPlaneEtcd {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneEtcd.class);
    public static final String UNIT = "sextant-etcd.service";
    /**
     * What sextant-etcd.service expands unquoted ({@code ExecStart=/usr/bin/etcd $SEXTANT_ETCD_ARGS}), which
     * systemd splits at whitespace into etcd's arguments. Not an {@code ETCD_} name: etcd reads every
     * {@code ETCD_*} variable as a flag and warns about (and prints) any it does not know.
     */
    public static final String ARGS_VARIABLE = "SEXTANT_ETCD_ARGS";
    /** The join service's client certificate's name. */
    static final String JOIN_CLIENT = "join-service";
    /** Kubernetes' (k3s') client certificate's name, where it keeps its state in this etcd. */
    static final String KUBERNETES_CLIENT = "k3s";
    /** etcd binds IP addresses only; it serves on every one of the node's and advertises its name. */
    private static final String ANY_ADDRESS = "0.0.0.0";
    /**
     * Words systemd leaves as they are both in an EnvironmentFile and when it splits {@code $VAR} at
     * whitespace: no quote, backslash, '$', '%' or space can change the command line on its way to etcd.
     */
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9._,:/=@+-]+");

    private final NodeLocalSettings settings;

    public ControlPlaneEtcd(NodeLocalSettings settings) {
        this.settings = settings;
    }

    /**
     * The etcd CA of the cluster whose master secret this is: seeded by the data key {@link EtcdCa#KEY_ID},
     * derived exactly as the KMS derives every data key, so every control plane derives the same CA.
     */
    public static EtcdCa ca(byte[] masterSecret, byte[] masterSalt) {
        byte[] seed = new KeyDerivation(masterSecret, masterSalt).dataKey(EtcdCa.KEY_ID, KeyDerivation.KEY_BYTES);
        return new EtcdCa(seed, new SecureRandom());
    }

    /** The file sextant-etcd.service reads its arguments from, and the condition it starts on. */
    public Path environmentFile() {
        return settings.dir().resolve("etcd.env");
    }

    Path dir() {
        return settings.dir().resolve("etcd");
    }

    public Path dataDir() {
        return dataDir(settings);
    }

    /** etcd's data dir on a node with these settings: where bring-up mounts the control plane's data volume. */
    public static Path dataDir(NodeLocalSettings settings) {
        return settings.dir().resolve("etcd").resolve("data");
    }

    /**
     * Whether {@code dataDir} is a file system of its own (the data volume mounted on it) rather than a
     * directory of the state disk: its device differs from its parent's.
     */
    public static boolean onOwnFileSystem(Path dataDir) throws IOException {
        return Files.isDirectory(dataDir)
                && !Files.getAttribute(dataDir, "unix:dev").equals(Files.getAttribute(dataDir.toAbsolutePath().getParent(), "unix:dev"));
    }

    /** Where the join service (and the bootstrapper's probe) reach the member: loopback, which its certificate names. */
    public String clientEndpoint() {
        return "127.0.0.1:" + settings.etcdClientPort();
    }

    /** Init: this node is the first member of a new etcd, advertising itself as the settings say; kept for every later start. */
    EtcdMemberIdentity create(String nodeName) throws IOException {
        return keep(EtcdMemberIdentity.first(nodeName, settings.clusterName(),
                EtcdAdvertisedUrls.of(settings, nodeName, settings.clusterName()).peerUrl()));
    }

    /** A control plane's join: this node joins the running etcd its ticket listed ({@code initialCluster}, itself included). */
    EtcdMemberIdentity create(String nodeName, Map<String, String> initialCluster) throws IOException {
        return keep(EtcdMemberIdentity.joining(nodeName, settings.clusterName(), initialCluster));
    }

    private EtcdMemberIdentity keep(EtcdMemberIdentity identity) throws IOException {
        identity.write(identityFile());
        return identity;
    }

    /** The member as it first started; empty on a node initialized without etcd. */
    Optional<EtcdMemberIdentity> identity() throws IOException {
        return EtcdMemberIdentity.read(identityFile(), settings);
    }

    private Path identityFile() {
        return dir().resolve("member.properties");
    }

    /**
     * Everything sextant-etcd.service needs before it starts, written afresh; returns the join service's
     * client certificate files.
     */
    EtcdTlsFiles prepare(EtcdMemberIdentity identity, byte[] masterSecret, byte[] masterSalt) throws ClusterServicesException {
        try {
            EtcdCa ca = ca(masterSecret, masterSalt);
            Instant now = Instant.now();
            List<InetAddress> own = NodeAddresses.current();
            Path pki = dir().resolve("pki");
            EtcdAdvertisedUrls urls = advertised(identity);
            EtcdTlsFiles member = EtcdTlsFiles.write(pki.resolve("member"), identity.memberName(), ca.certificate(),
                    ca.issueMember(identity.memberName(), memberNames(identity, urls), memberAddresses(own, urls), now,
                            EtcdCa.DEFAULT_VALIDITY));
            EtcdTlsFiles joinClient = issueClient(ca, JOIN_CLIENT, now);
            EtcdHostsEntry.write(settings.hostsFile(), identity.dnsName(), hostsAddress(own));
            if (!Files.isDirectory(dataDir())) {
                // The unit may write here only (ReadWritePaths=), so it exists before etcd starts; 0700 as etcd wants it.
                Files.createDirectories(dataDir(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (onOwnFileSystem(dataDir())) {
                // A fresh file system's root is 0755 (and holds lost+found, which etcd names in a warning and ignores).
                Files.setPosixFilePermissions(dataDir(), PosixFilePermissions.fromString("rwx------"));
                LOG.info("etcd's data dir {} is this control plane's data volume", dataDir());
            } else {
                LOG.info("etcd's data dir {} is on the state disk: this control plane has no data volume", dataDir());
            }
            Files.writeString(environmentFile(), environmentFile(memberConfig(identity, member, clusterToken(ca)).arguments()));
            return joinClient;
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            throw new ClusterServicesException("preparing etcd (" + UNIT + ") under " + dir() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The join service's client certificate as {@link #prepare} last issued it: also the bootstrapper's, for
     * what it reads of the cluster store on this control plane (the revocation list it hands to discovery).
     */
    public EtcdTlsFiles joinClientFiles() {
        Path dir = dir().resolve("pki").resolve(JOIN_CLIENT);
        return new EtcdTlsFiles(dir.resolve("ca.crt"), dir.resolve(JOIN_CLIENT + ".crt"), dir.resolve(JOIN_CLIENT + ".key"));
    }

    /** A client certificate of the cluster's etcd CA, issued afresh, under {@code pki/<name>} (the key 0600). */
    EtcdTlsFiles issueClient(String name, byte[] masterSecret, byte[] masterSalt) throws ClusterServicesException {
        try {
            return issueClient(ca(masterSecret, masterSalt), name, Instant.now());
        } catch (UncheckedIOException | IllegalArgumentException e) {
            throw new ClusterServicesException("issuing etcd's client certificate " + name + " under " + dir() + ": "
                    + e.getMessage(), e);
        }
    }

    private EtcdTlsFiles issueClient(EtcdCa ca, String name, Instant now) {
        return EtcdTlsFiles.write(dir().resolve("pki").resolve(name), name, ca.certificate(),
                ca.issueClient(name, now, EtcdCa.DEFAULT_VALIDITY));
    }

    /**
     * The member as it first started (a new cluster of one at init, or the ticket's running cluster at a join),
     * TLS only, advertising {@link #advertised} and bound on every address. The initial cluster and its state
     * are read only while the data dir is empty: a restarted member finds its cluster in its data dir and
     * ignores them, but the file still says what the first start said.
     */
    EtcdMemberConfig memberConfig(EtcdMemberIdentity identity, EtcdTlsFiles member, String token) {
        return new EtcdMemberConfig(identity.memberName(), dataDir(), advertised(identity).clientUrl(), identity.peerUrl(),
                identity.initialCluster(), identity.initialState(), token, member, member,
                "https://" + ANY_ADDRESS + ":" + settings.etcdClientPort(), "https://" + ANY_ADDRESS + ":" + settings.etcdPeerPort(),
                settings.etcdHeartbeat());
    }

    /**
     * The peer URL the member first started with (its identity in the cluster's membership, which a later
     * change of settings cannot move) and the client URL the settings advertise now.
     */
    private EtcdAdvertisedUrls advertised(EtcdMemberIdentity identity) {
        return new EtcdAdvertisedUrls(identity.peerUrl(),
                EtcdAdvertisedUrls.of(settings, identity.memberName(), identity.clusterName()).clientUrl());
    }

    /** The member's DNS names, and the hosts it advertises when they are names: a peer or client checks the one it dialled. */
    private static List<String> memberNames(EtcdMemberIdentity identity, EtcdAdvertisedUrls urls) {
        List<String> names = new ArrayList<>(List.of(identity.dnsName()));
        hosts(urls).filter(host -> !isIpLiteral(host)).forEach(names::add);
        return names;
    }

    /** The node's addresses at this start, and the hosts it advertises when they are addresses. */
    private static List<InetAddress> memberAddresses(List<InetAddress> own, EtcdAdvertisedUrls urls) throws UnknownHostException {
        List<InetAddress> addresses = new ArrayList<>(own);
        for (String host : hosts(urls).filter(ControlPlaneEtcd::isIpLiteral).toList()) {
            addresses.add(InetAddress.getByName(host)); // a literal: parsed, never resolved
        }
        return addresses;
    }

    private static Stream<String> hosts(EtcdAdvertisedUrls urls) {
        return Stream.of(urls.peerUrl(), urls.clientUrl()).map(url -> URI.create(url).getHost())
                .map(host -> host.startsWith("[") ? host.substring(1, host.length() - 1) : host).distinct();
    }

    private static boolean isIpLiteral(String host) {
        return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    /**
     * The etcd cluster token: from the CA, so one per master secret and the same on every control plane
     * (the cluster name alone is "sextant" in many clusters).
     */
    static String clusterToken(EtcdCa ca) {
        try {
            return "sextant-" + Sha256.hex(ca.certificate().getEncoded()).substring(0, 16);
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("the etcd CA certificate does not encode", e);
        }
    }

    /** {@code SEXTANT_ETCD_ARGS=<arguments separated by one space>}, refusing any argument systemd would change. */
    static String environmentFile(List<String> arguments) {
        for (String argument : arguments) {
            if (!PLAIN_WORD.matcher(argument).matches()) {
                throw new IllegalArgumentException("etcd argument '" + argument + "' has a character systemd would"
                        + " interpret in " + ARGS_VARIABLE + " (allowed: letters, digits and . _ , : / = @ + -)");
            }
        }
        return "# Written by the Sextant bootstrapper at every start of etcd, from EtcdMemberConfig; sextant-etcd.service runs\n"
                + "# /usr/bin/etcd $" + ARGS_VARIABLE + ", which systemd splits at whitespace into these arguments.\n"
                + ARGS_VARIABLE + "=" + String.join(" ", arguments) + "\n";
    }

    /** The member's name points at the node's first IPv4 address (the one discovery would publish), else loopback. */
    private static String hostsAddress(List<InetAddress> own) {
        return own.stream().filter(a -> a instanceof Inet4Address).findFirst()
                .orElse(InetAddress.getLoopbackAddress()).getHostAddress();
    }
}
