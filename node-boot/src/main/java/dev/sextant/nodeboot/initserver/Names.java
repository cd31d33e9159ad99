package dev.sextant.nodeboot.initserver;

import java.util.regex.Pattern;

/** Syntax checks for names and addresses an operator sends; no DNS lookups, ever. */
public final class Names {
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern HOST_LABEL = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?");
    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private Names() {}

    /** An RFC 1123 DNS label in lower case (Kubernetes' rule for names like the cluster's). */
    public static boolean isDnsLabel(String name) {
        return LABEL.matcher(name).matches();
    }

    public static boolean isHostname(String name) {
        if (name.isEmpty() || name.length() > 253 || name.endsWith(".")) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (!HOST_LABEL.matcher(label).matches()) {
                return false;
            }
        }
        // An all-numeric last label would read as a (bad) IPv4 address.
        return !name.substring(name.lastIndexOf('.') + 1).chars().allMatch(Character::isDigit);
    }

    public static boolean isIpAddress(String value) {
        if (IPV4.matcher(value).matches()) {
            return true;
        }
        if (!value.contains(":") || !IPV6.matcher(value).matches()) {
            return false;
        }
        try {
            // A literal with ':' is parsed, never resolved.
            return java.net.InetAddress.getByName(value) instanceof java.net.Inet6Address;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    public static boolean isCidr(String value) {
        int slash = value.indexOf('/');
        if (slash < 0) {
            return false;
        }
        String address = value.substring(0, slash);
        String bits = value.substring(slash + 1);
        if (!bits.matches("\\d{1,3}") || !isIpAddress(address)) {
            return false;
        }
        return Integer.parseInt(bits) <= (address.contains(":") ? 128 : 32);
    }
}
