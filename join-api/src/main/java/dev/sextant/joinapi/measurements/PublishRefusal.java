package dev.sextant.joinapi.measurements;

import dev.sextant.grpcsupport.Refusal;
import io.grpc.Status;

/**
 * Why a measurement set is refused, by {@code MeasurementsService.Publish} and by a join service reading
 * the set in etcd (docs/image-upgrades.md, "The set in force lives in etcd"). A set that re-admits a retired
 * image is the join service's {@code IMAGE_RETIRED} ({@link SetAdmission}), an unreachable etcd its usual
 * {@code CLUSTER_STORE_UNAVAILABLE}.
 */
public enum PublishRefusal implements Refusal.Reason {
    /** Not a measurement set: JSON that does not parse, a PCR missing, two images with the same PCRs... */
    NOT_A_SET(Status.Code.INVALID_ARGUMENT),
    /** The signature does not verify under the join service's key, or that key is not the one the cluster pinned. */
    NOT_SIGNED_BY_PINNED_KEY(Status.Code.PERMISSION_DENIED),
    /** The cluster has pinned no signing key yet (init pins it): nothing can vouch for the set. */
    NO_KEY_PINNED(Status.Code.FAILED_PRECONDITION),
    /** A published set's version is not above the one in force; a set read from etcd is below the floor. */
    VERSION_NOT_ABOVE(Status.Code.FAILED_PRECONDITION);

    private final Status.Code code;

    PublishRefusal(Status.Code code) {
        this.code = code;
    }

    @Override
    public Status.Code code() {
        return code;
    }
}
