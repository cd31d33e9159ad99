package dev.sextant.joinapi.plan;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.proto.v1.IssueJoinTicketRequest;
import dev.sextant.proto.v1.IssueJoinTicketResponse;

/**
 * The Kubernetes part of a join ticket, one implementation per distribution (k3s, kubeadm) and one
 * for a cluster without Kubernetes. Split in two so the ticket issuer keeps its order: every input
 * is checked before anything is written, and what is signed or created (certificate, bootstrap
 * token) only after the bindings succeeded.
 */
public interface KubernetesJoinPlan {

    /** Checks the request's distribution-specific fields; writes, signs and creates nothing. */
    Checked check(IssueJoinTicketRequest request, String nodeName) throws Refusal;

    /** A checked request. */
    @FunctionalInterface
    interface Checked {
        /** Signs and creates what the plan needs (the bootstrap token last) and sets it on the ticket. */
        void complete(IssueJoinTicketResponse.Builder ticket) throws Refusal;
    }
}
