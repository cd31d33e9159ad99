package dev.sextant.housekeeping.discovery;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Comparator;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One published endpoint: a name inside the cluster's discovery domain (e.g.
 * {@code api.internal.demo}), an IP literal and a port (0 when only the address matters, as for
 * /etc/hosts). Several owners may publish the same name; readers see the union.
 */
public record EndpointRecord(String name, String address, int port) implements Comparable<EndpointRecord> {
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-f:.]+");
    private static final Comparator<EndpointRecord> ORDER = Comparator.comparing(EndpointRecord::name)
            .thenComparing(EndpointRecord::address).thenComparingInt(EndpointRecord::port);

    public EndpointRecord {
        name = name.toLowerCase(Locale.ROOT);
        address = address.toLowerCase(Locale.ROOT);
        if (!isDnsName(name)) {
            throw new IllegalArgumentException("record name '" + name + "' is not a DNS name");
        }
        if (!isIpLiteral(address)) {
            throw new IllegalArgumentException("record address '" + address + "' is not an IP address literal");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("record port " + port + " is outside 0..65535");
        }
    }

    /** True when the name lies in {@code domain} (a label boundary, not a string suffix). */
    public boolean inDomain(String domain) {
        return name.endsWith("." + domain);
    }

    @Override
    public int compareTo(EndpointRecord other) {
        return ORDER.compare(this, other);
    }

    static boolean isDnsName(String name) {
        if (name.isEmpty() || name.length() > 253) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    // InetAddress.getByName never does a lookup for a literal; the patterns keep names out of it.
    static boolean isIpLiteral(String text) {
        var v4 = IPV4.matcher(text);
        if (v4.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(v4.group(i)) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!text.contains(":") || !IPV6.matcher(text).matches()) {
            return false;
        }
        try {
            InetAddress.getByName(text);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
