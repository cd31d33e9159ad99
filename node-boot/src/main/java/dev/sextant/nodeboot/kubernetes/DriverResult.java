package dev.sextant.nodeboot.kubernetes;

/** What a driver achieved. "Not installed" is an answer, not a crash: images may ship without k3s. */
public sealed interface DriverResult {
    /** One line for the operator's progress view and the node's summary. */
    String describe();

    /** Kubernetes runs; {@code kubeconfig} is the admin kubeconfig for init, empty for join. */
    record Started(byte[] kubeconfig) implements DriverResult {
        @Override
        public String describe() {
            return "Kubernetes: started";
        }
    }

    record NotInstalled(String message) implements DriverResult {
        @Override
        public String describe() {
            return "Kubernetes: not installed (" + message + ")";
        }
    }

    record Failed(String message) implements DriverResult {
        @Override
        public String describe() {
            return "Kubernetes: failed (" + message + ")";
        }
    }
}
