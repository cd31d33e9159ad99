package dev.sextant.housekeeping.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.attestation.testkit.FreePorts;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.RevocationList;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A revocation reaching every member: real discovery members (each its own JChannel on the sealed
 * stack, on its own port of 127.0.0.1, in this JVM) with their own hosts files, two control planes
 * and six workers. A control plane publishes the discovery CA's list revoking one worker; every
 * other member's hosts file must lose that worker's names, and keep them out while the revoked
 * worker keeps announcing. The list is a full one (1000 keys), so the largest announcement a control
 * plane makes crosses the sealed stack. Prints how long the list took to empty every hosts file of them.
 */
@DisplayName("Revocation through discovery: a revoked member's names leave every member's hosts file")
class RevocationPropagationTest {
    private static final String DOMAIN = "internal.demo";
    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final byte[] groupKey = new byte[32];
    private final TestMembers cluster;
    private final List<InetSocketAddress> seeds = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    /** Every running member by node name, in start order, and its hosts file. */
    private final Map<String, GossipNode> members = new LinkedHashMap<>();
    private final Map<String, Path> hostsFiles = new HashMap<>();
    private final Map<String, MemberCredentials> credentials = new HashMap<>();
    @TempDir
    Path dir;

    RevocationPropagationTest() {
        new SecureRandom().nextBytes(groupKey);
        cluster = TestMembers.forGroupKey(groupKey);
    }

    @AfterEach
    void stop() {
        members.values().parallelStream().forEach(GossipNode::close);
    }

    @Test
    @DisplayName("a list revoking w3, published by one control plane, empties every other member's hosts file of w3's names; w3's later announcements stay out; a member joining after the publisher left learns the list from the other control plane")
    void revocationEmptiesEveryHostsFile() throws Exception {
        for (int port : FreePorts.loopback(9)) {
            ports.add(port);
        }
        for (int i = 0; i < 2; i++) {
            seeds.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(i)));
        }
        List<String> names = new ArrayList<>(List.of("cp-0", "cp-1"));
        for (int i = 0; i < 6; i++) {
            names.add("w" + i);
        }
        for (int i = 0; i < names.size(); i++) {
            start(names.get(i), i);
        }
        Set<String> everyName = new TreeSet<>();
        names.forEach(n -> everyName.addAll(ownNames(n)));
        assertTrue(await(Duration.ofSeconds(60), () -> members.keySet().stream().allMatch(n -> hostsNames(n).equals(everyName))),
                "the group did not converge:\n" + state());

        // cp-0 publishes the list revoking w3, as the holder of the re-attestation duty will: a full list
        // (w3 and 999 keys revoked before), the largest announcement a control plane makes.
        byte[][] keys = new byte[RevocationList.MAX_KEYS][];
        keys[0] = TestMembers.keyOf(credentials.get("w3"));
        for (int i = 1; i < keys.length; i++) {
            keys[i] = MemberKey.generate(new SecureRandom()).publicKey();
        }
        byte[] list = cluster.revocations(1, keys);
        List<String> others = members.keySet().stream().filter(n -> !n.equals("w3")).toList();
        Map<String, Long> goneAfter = new HashMap<>();
        long start = System.nanoTime();
        assertTrue(members.get("cp-0").publishRevocations(list));
        boolean gone = await(BOUND, () -> {
            for (String n : others) {
                if (!goneAfter.containsKey(n) && hostsNames(n).stream().noneMatch(x -> x.startsWith("w3."))) {
                    goneAfter.put(n, (System.nanoTime() - start) / 1_000_000);
                }
            }
            return goneAfter.size() == others.size();
        });
        assertTrue(gone, "w3's names are still listed after " + BOUND.toSeconds() + " s:\n" + state());
        long[] sorted = goneAfter.values().stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("FIGURE revocation: %d members (one JVM, loopback), a list of %d keys (%d bytes) published by cp-0"
                        + " -> w3's names gone from all %d other members' hosts files in %d ms (median member %d ms; bound %d s)%n",
                members.size(), keys.length, list.length, others.size(), sorted[sorted.length - 1], sorted[sorted.length / 2],
                BOUND.toSeconds());
        for (String n : others) {
            assertEquals(1, members.get(n).revocationVersion(), n + "'s list version");
        }

        // w3 keeps announcing, with a newer version and a new name: nobody takes it back.
        members.get("w3").publish(Set.of(new EndpointRecord("w3.kubelet." + DOMAIN, LOOPBACK, 10250),
                new EndpointRecord("w3.web." + DOMAIN, LOOPBACK, 443)));
        Thread.sleep(2000);
        for (String n : others) {
            assertTrue(hostsNames(n).stream().noneMatch(x -> x.startsWith("w3.")), n + " lists w3 again:\n" + state());
        }

        // The publisher leaves; a member joining now hears the list from cp-1, which passes it on.
        members.remove("cp-0").close();
        start("w-late", 8);
        Set<String> live = new TreeSet<>();
        members.keySet().stream().filter(n -> !n.equals("w3")).forEach(n -> live.addAll(ownNames(n)));
        assertTrue(await(Duration.ofSeconds(60), () -> members.get("w-late").revocationVersion() == 1
                        && hostsNames("w-late").equals(live)),
                "the late member's list version " + members.get("w-late").revocationVersion() + ", hosts:\n" + state());
    }

    private void start(String name, int index) throws Exception {
        boolean controlPlane = name.startsWith("cp-");
        MemberCredentials member = controlPlane ? cluster.controlPlane(name) : cluster.worker(name);
        credentials.put(name, member);
        Path hosts = dir.resolve(name + ".hosts");
        Files.writeString(hosts, "127.0.0.1 localhost\n");
        hostsFiles.put(name, hosts);
        HostsFile file = new HostsFile(hosts);
        GossipNode node = GossipNode.start(new GossipNode.Config(name, InetAddress.getLoopbackAddress(), ports.get(index), seeds,
                DOMAIN, Duration.ofSeconds(6), Duration.ofSeconds(30)), groupKey, member, records -> {
                    try {
                        file.update(RecordTable.addressesByName(records));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        Set<EndpointRecord> own = new TreeSet<>();
        for (String n : ownNames(name)) {
            own.add(new EndpointRecord(n, LOOPBACK, controlPlane ? 6443 : 10250));
        }
        node.publish(own);
        members.put(name, node);
    }

    /** What member {@code name} publishes: a control plane the API and its etcd member, a worker its kubelet. */
    private static Set<String> ownNames(String name) {
        return name.startsWith("cp-") ? Set.of("api." + DOMAIN, "etcd-" + name + "." + DOMAIN)
                : Set.of(name + ".kubelet." + DOMAIN);
    }

    /** The names in member {@code name}'s hosts file's managed block. */
    private Set<String> hostsNames(String name) {
        try {
            Set<String> names = new TreeSet<>();
            boolean inside = false;
            for (String line : Files.readAllLines(hostsFiles.get(name))) {
                if (line.equals(HostsFile.BEGIN)) {
                    inside = true;
                } else if (line.equals(HostsFile.END)) {
                    inside = false;
                } else if (inside) {
                    names.addAll(Arrays.asList(line.split("\t")[1].split(" ")));
                }
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String state() {
        StringBuilder out = new StringBuilder();
        members.forEach((n, node) -> out.append(String.format("  %s: %d members, list version %d, hosts %s%n", n, node.members(),
                node.revocationVersion(), hostsNames(n))));
        return out.toString();
    }

    private static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !condition.getAsBoolean()) {
            Thread.sleep(5);
        }
        return condition.getAsBoolean();
    }
}
