package dev.sextant.nodeboot.deploy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The node's own addresses, read from its interfaces at the moment of asking (DHCP may give another after a
 * reboot, which is one reason the etcd certificates are issued at every start): every interface that is up
 * and not loopback, by name, IPv4 before IPv6, without link-local addresses.
 */
final class NodeAddresses {
    private NodeAddresses() {
    }

    static List<InetAddress> current() {
        List<InetAddress> v4 = new ArrayList<>();
        List<InetAddress> v6 = new ArrayList<>();
        try {
            List<NetworkInterface> up = new ArrayList<>();
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nic.isUp() && !nic.isLoopback()) {
                    up.add(nic);
                }
            }
            up.sort(Comparator.comparing(NetworkInterface::getName));
            for (NetworkInterface nic : up) {
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a.isLinkLocalAddress() || a.isLoopbackAddress()) {
                        continue;
                    }
                    if (a instanceof Inet4Address) {
                        v4.add(a);
                    } else if (a instanceof Inet6Address six) {
                        // Without its scope: a certificate names the address alone.
                        v6.add(InetAddress.getByAddress(six.getAddress()));
                    }
                }
            }
        } catch (SocketException | java.net.UnknownHostException e) {
            // No interface list: the certificates name loopback and the DNS names only.
            return List.of();
        }
        List<InetAddress> all = new ArrayList<>(v4);
        all.addAll(v6);
        return all.stream().distinct().toList();
    }
}
