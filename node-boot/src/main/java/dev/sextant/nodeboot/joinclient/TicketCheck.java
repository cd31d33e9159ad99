package dev.sextant.nodeboot.joinclient;

import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import dev.sextant.proto.v1.K3sJoin;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a ticket's fields before the node lock is taken or anything is applied: a ticket that
 * fails here leaves the node fresh (the next round may ask another join service). The messages
 * name fields and sizes, never their content.
 */
public final class TicketCheck {
    static final int KEY_BYTES = 32;
    static final int MAX_TOKEN_CHARS = 512;
    static final int MAX_URL_CHARS = 2048;

    private TicketCheck() {}

    /**
     * Problems of a join ticket for the node that sent {@code request}, whose Kubernetes is (or is not)
     * installed: k3s is the only driver, so a kubeadm plan cannot be applied here, and a node that runs
     * Kubernetes needs a plan. A control plane's ticket carries what it serves with ({@link ControlPlaneTicketCheck});
     * a worker's must not: it has no use for the master secret, and keeps nothing of a ticket that offers it.
     */
    public static List<String> problems(IssueJoinTicketResponse ticket, IssueJoinTicketRequest request, boolean kubernetesInstalled) {
        List<String> problems = new ArrayList<>();
        key(problems, "state_disk_key", ticket.getStateDiskKey().size());
        key(problems, "measurement_secret", ticket.getMeasurementSecret().size());
        key(problems, "measurement_salt", ticket.getMeasurementSalt().size());
        key(problems, "discovery_key", ticket.getDiscoveryKey().size());
        switch (ticket.getKubernetesCase()) {
            case K3S -> k3s(problems, ticket.getK3S());
            case KUBEADM -> problems.add("the ticket carries a kubeadm plan; this node runs k3s");
            case KUBERNETES_NOT_SET -> {
                if (kubernetesInstalled) {
                    problems.add("the ticket carries no Kubernetes plan, but this node runs Kubernetes");
                }
            }
        }
        if (!request.getControlPlane()) {
            if (ticket.hasControlPlane()) {
                problems.add("a worker's ticket carries control-plane material (the master secret); refused, nothing kept");
            }
        } else if (ticket.getKubernetesCase() != IssueJoinTicketResponse.KubernetesCase.KUBERNETES_NOT_SET) {
            problems.add(JoinClient.CONTROL_PLANE_WITH_KUBERNETES);
        } else if (!ticket.hasControlPlane()) {
            problems.add("a control plane's ticket carries no control_plane (the master secret, etcd's members, the measurements)");
        } else {
            problems.addAll(ControlPlaneTicketCheck.problems(ticket.getControlPlane(), request.getEtcdMember()));
        }
        return problems;
    }

    /** Problems of a rejoin ticket: it carries the disk key, and only that is used. */
    static List<String> problems(IssueRejoinTicketResponse ticket) {
        List<String> problems = new ArrayList<>();
        key(problems, "state_disk_key", ticket.getStateDiskKey().size());
        return problems;
    }

    private static void k3s(List<String> problems, K3sJoin k3s) {
        if (k3s.getToken().isEmpty() || k3s.getToken().length() > MAX_TOKEN_CHARS
                || k3s.getToken().chars().anyMatch(c -> c <= ' ' || c > '~')) {
            problems.add("k3s.token is empty, longer than " + MAX_TOKEN_CHARS + " characters or not printable ASCII");
        }
        String url = k3s.getServerUrl();
        if (url.length() > MAX_URL_CHARS || !isHttpsHostPort(url)) {
            problems.add("k3s.server_url is not of the form https://HOST:PORT");
        }
    }

    static boolean isHttpsHostPort(String url) {
        try {
            URI uri = new URI(url);
            return "https".equals(uri.getScheme()) && uri.getHost() != null && uri.getPort() > 0 && uri.getPort() < 65536
                    && uri.getUserInfo() == null && uri.getQuery() == null && uri.getFragment() == null
                    && (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"));
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static void key(List<String> problems, String field, int size) {
        if (size != KEY_BYTES) {
            problems.add(field + " has " + size + " bytes, not " + KEY_BYTES);
        }
    }
}
