package dev.sextant.housekeeping.discovery;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One discovery node as its own process (the netns tests start it with {@code ip netns exec}).
 * Arguments: NAME BIND_IP PORT SEEDS(ip:port,...) DOMAIN KEY_HEX FAILURE_TIMEOUT_MS HOSTS_FILE [RECORDS].
 * RECORDS is "name=ip:port,...". Prints "JOINED members" once in the group and
 * "RECORDS epochMillis name=ip:port,..." after every change; stdin "publish RECORDS" replaces its
 * records, "quit" leaves the group and exits.
 */
public final class GossipNodeProcess {
    public static void main(String[] args) throws Exception {
        List<InetSocketAddress> seeds = new ArrayList<>();
        for (String s : args[3].split(",")) {
            int colon = s.lastIndexOf(':');
            seeds.add(new InetSocketAddress(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
        }
        var config = new GossipNode.Config(args[0], InetAddress.getByName(args[1]), Integer.parseInt(args[2]), seeds,
                args[4], Duration.ofMillis(Long.parseLong(args[6])), Duration.ofSeconds(30));
        HostsFile hosts = new HostsFile(Path.of(args[7]));
        byte[] key = HexFormat.of().parseHex(args[5]);
        // The benchmark's baseline runs BaselineStack (-Dsextant.discovery.stack=baseline).
        DiscoveryStack.Factory stack = "baseline".equals(System.getProperty("sextant.discovery.stack"))
                ? BaselineStack::build : DiscoveryStack::build;
        // Every process given the same key shares one test CA, and each certifies itself as a control plane.
        GossipNode node = GossipNode.start(config, key, TestMembers.forGroupKey(key).controlPlane(args[0]), records -> {
            System.out.println("RECORDS " + System.currentTimeMillis() + " " + format(records));
            try {
                hosts.update(RecordTable.addressesByName(records));
            } catch (java.io.IOException e) {
                System.out.println("HOSTS-FAILED " + e.getMessage());
            }
        }, stack);
        System.out.println("JOINED " + node.members());
        if (args.length > 8) {
            node.publish(parse(args[8]));
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("publish ")) {
                node.publish(parse(line.substring(8).strip()));
            } else if (line.equals("quit")) {
                break;
            }
        }
        node.close();
        System.out.println("LEFT");
        System.exit(0);
    }

    static String format(Set<EndpointRecord> records) {
        return records.stream().map(r -> r.name() + "=" + r.address() + ":" + r.port()).collect(Collectors.joining(","));
    }

    static Set<EndpointRecord> parse(String text) {
        Set<EndpointRecord> records = new TreeSet<>();
        if (text.isEmpty() || text.equals("-")) {
            return records;
        }
        for (String item : text.split(",")) {
            String[] nameRest = item.split("=", 2);
            int colon = nameRest[1].lastIndexOf(':');
            records.add(new EndpointRecord(nameRest[0], nameRest[1].substring(0, colon),
                    Integer.parseInt(nameRest[1].substring(colon + 1))));
        }
        return records;
    }
}
