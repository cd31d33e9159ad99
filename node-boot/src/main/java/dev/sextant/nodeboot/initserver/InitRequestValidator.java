package dev.sextant.nodeboot.initserver;

import dev.sextant.proto.v1.InitRequest;

import java.util.ArrayList;
import java.util.List;

/** Checks every field of an init request and lists all problems at once, so one retry fixes them. */
public final class InitRequestValidator {
    static final int MIN_MASTER_SECRET = 16;
    static final int SALT_BYTES = 32;
    /** Every control plane is an etcd voter; etcd advises against more than seven (each write waits for a majority). */
    static final int MAX_CONTROL_PLANES = 7;

    private InitRequestValidator() {}

    public static List<String> problems(InitRequest r) {
        List<String> problems = new ArrayList<>();
        if (r.getKmsUri().isEmpty()) {
            if (r.getMasterSecret().size() < MIN_MASTER_SECRET) {
                problems.add("master_secret must be at least " + MIN_MASTER_SECRET + " bytes (got "
                        + r.getMasterSecret().size() + "), or set kms_uri");
            }
            if (r.getMasterSalt().size() != SALT_BYTES) {
                problems.add("master_salt must be " + SALT_BYTES + " bytes (got " + r.getMasterSalt().size() + ")");
            }
        } else {
            if (!r.getMasterSecret().isEmpty()) {
                problems.add("give either master_secret or kms_uri, not both");
            }
            if (KmsUri.parse(r.getKmsUri()).isEmpty()) {
                problems.add("kms_uri must be kms://cluster-kms?key=<base64url>&salt=<base64url>"
                        + " (key at least " + MIN_MASTER_SECRET + " bytes, salt " + SALT_BYTES + " bytes)");
            }
        }
        if (r.getMeasurementSalt().size() != SALT_BYTES) {
            problems.add("measurement_salt must be " + SALT_BYTES + " bytes (got " + r.getMeasurementSalt().size() + ")");
        }
        if (!r.getClusterName().isEmpty() && !Names.isDnsLabel(r.getClusterName())) {
            problems.add("cluster_name '" + r.getClusterName() + "' is not an RFC 1123 label"
                    + " (lower-case letters, digits and '-', at most 63)");
        }
        for (String san : r.getApiServerCertSansList()) {
            if (!Names.isHostname(san) && !Names.isIpAddress(san)) {
                problems.add("api_server_cert_sans entry '" + san + "' is neither a hostname nor an IP address");
            }
        }
        if (Integer.compareUnsigned(r.getControlPlanes(), MAX_CONTROL_PLANES) > 0) {
            problems.add("control_planes must be between 1 and " + MAX_CONTROL_PLANES + " (0: the default, 3), got "
                    + Integer.toUnsignedString(r.getControlPlanes()));
        }
        checkCidr(problems, "kubernetes.service_cidr", r.getKubernetes().getServiceCidr());
        checkCidr(problems, "kubernetes.pod_cidr", r.getKubernetes().getPodCidr());
        return problems;
    }

    private static void checkCidr(List<String> problems, String field, String value) {
        if (!value.isEmpty() && !Names.isCidr(value)) {
            problems.add(field + " '" + value + "' is not a CIDR");
        }
    }
}
