package dev.sextant.joinapi.refusal;

import dev.sextant.grpcsupport.Refusal;
import io.grpc.Status;

/** Why the join service refuses a ticket; the lower-case names tag the refusal metric. */
public enum JoinRefusal implements Refusal.Reason {
    INVALID_INPUT(Status.Code.INVALID_ARGUMENT),
    UNATTESTED(Status.Code.UNAUTHENTICATED),
    /** The disk UUID is bound to another machine's AK. */
    DISK_BOUND_ELSEWHERE(Status.Code.PERMISSION_DENIED),
    /** A rejoin for a disk this machine does not own. */
    DISK_NOT_BOUND(Status.Code.PERMISSION_DENIED),
    /** This machine already owns another state disk: one state disk per AK. */
    ONE_DISK_PER_MACHINE(Status.Code.PERMISSION_DENIED),
    /** This machine already joined under another node name: one name per AK. */
    ONE_NAME_PER_MACHINE(Status.Code.PERMISSION_DENIED),
    NODE_NAME_TAKEN(Status.Code.ALREADY_EXISTS),
    /** This machine already joined in another role (a worker asking to be a control plane): one role per AK. */
    ONE_ROLE_PER_MACHINE(Status.Code.PERMISSION_DENIED),
    /**
     * A control plane's first join when the cluster admits no more ({@code sextant init --control-planes}).
     * FAILED_PRECONDITION, not RESOURCE_EXHAUSTED: no retry will find a place (admitted control planes
     * are never removed by the join service), only an operator changing the cluster can; gRPC's own
     * guide reserves RESOURCE_EXHAUSTED for quotas and load, which clients retry.
     */
    CONTROL_PLANE_LIMIT_REACHED(Status.Code.FAILED_PRECONDITION),
    /**
     * A control plane's request without its etcd member, or with one named other than the node or whose
     * URLs are not {@code https://HOST:PORT}; or a worker's request naming one (a worker runs no member).
     */
    INVALID_ETCD_MEMBER(Status.Code.INVALID_ARGUMENT),
    /**
     * A control plane asked a join service that holds no master secret ({@code sextant.join.master-secret.*}):
     * only a control plane's own join service can hand it over. No retry at this service helps.
     */
    NO_MASTER_SECRET(Status.Code.FAILED_PRECONDITION),
    /**
     * Another control plane's etcd member is still a learner: etcd admits one learner at a time, so one
     * control plane joins etcd at a time. The bindings stay this machine's; its retry goes through once
     * the other is promoted, or removed for never starting.
     */
    ETCD_LEARNER_PENDING(Status.Code.UNAVAILABLE),
    /** The peer URL is that of another started etcd member: a node cannot join under another's member. */
    ETCD_PEER_URL_TAKEN(Status.Code.ALREADY_EXISTS),
    /**
     * The join service's measurement set is older than one the cluster accepted before (the floor in etcd):
     * no ticket until the operator's newer set is in force again; a retry at this service does not help.
     */
    MEASUREMENTS_BELOW_FLOOR(Status.Code.FAILED_PRECONDITION),
    /**
     * The join service's measurement set is signed by a key other than the one the cluster pinned in etcd
     * (a swapped key and set, or a rotation never signed by the pinned key): no ticket until a set signed
     * by the pinned key is in force; a retry at this service does not help.
     */
    MEASUREMENTS_KEY_NOT_PINNED(Status.Code.FAILED_PRECONDITION),
    /**
     * A measurement set lists under {@code images} an image retired before (by its version, or by its PCR 4, 9
     * and 11): retirement is final, whatever the new set's version. No retry helps; a new build of the image
     * (a new version, so other PCRs) does.
     */
    IMAGE_RETIRED(Status.Code.FAILED_PRECONDITION),
    /** etcd did not answer, or the bindings kept changing under a join: the node retries. */
    CLUSTER_STORE_UNAVAILABLE(Status.Code.UNAVAILABLE),
    KMS_UNAVAILABLE(Status.Code.UNAVAILABLE),
    KUBERNETES_UNAVAILABLE(Status.Code.UNAVAILABLE),
    INTERNAL(Status.Code.INTERNAL);

    private final Status.Code code;

    JoinRefusal(Status.Code code) {
        this.code = code;
    }

    @Override
    public Status.Code code() {
        return code;
    }

    public static Refusal invalid(String message) {
        return new Refusal(INVALID_INPUT, message);
    }
}
