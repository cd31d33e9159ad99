package dev.sextant.clusterservices.upgrade;

/** How an upgrade ended, with one sentence for the operator. */
public record UpgradeOutcome(Result result, String message) {
    public enum Result {
        /** Every DaemonSet rolled out the new images. */
        SUCCEEDED,
        /** Applied without waiting ({@code --no-wait}): nobody checked the rollout. */
        APPLIED_NOT_WAITED,
        /** The rollout failed or timed out, and the previous images and measurements were put back. */
        ROLLED_BACK,
        /** The rollout failed and putting the previous state back failed too: the operator must act. */
        ROLLBACK_FAILED
    }

    public boolean ok() {
        return result == Result.SUCCEEDED || result == Result.APPLIED_NOT_WAITED;
    }
}
