package dev.sextant.clusterservices;

import java.util.Objects;

/**
 * Everything that differs between clusters in the KMS and join service objects.
 *
 * @param joinServiceImage  image of the join service, by digest ({@code name@sha256:<hex>})
 * @param kmsImage          image of the KMS, by digest
 * @param measurementsJson  the measurements file, exactly as signed
 * @param measurementsSignature its {@code .sig} (base64 text, as {@code sextant measurements sign} writes it)
 * @param measurementsPublicKeyPem the key the measurements are signed with
 * @param ekCaPem           the CA bundle the joining nodes' EK/AK certificates chain to
 * @param masterSecret      the KMS master secret (raw bytes, at least 16)
 * @param salt              the KMS master secret's salt (raw bytes)
 * @param measurementSalt   the salt `sextant init` derived the cluster ID with
 * @param apiServerEndpoint host:port joining nodes reach the Kubernetes API at
 * @param joinNodePort      the join service's NodePort (30090 by default)
 * @param initNode          the init node's name and disks, bound to its AK before the join service serves
 * @param etcd              how the join service reaches the cluster's etcd (its bindings live there)
 */
public record ServicesConfig(
        String joinServiceImage,
        String kmsImage,
        byte[] measurementsJson,
        byte[] measurementsSignature,
        String measurementsPublicKeyPem,
        String ekCaPem,
        byte[] masterSecret,
        byte[] salt,
        byte[] measurementSalt,
        String apiServerEndpoint,
        int joinNodePort,
        InitNodeBinding initNode,
        EtcdClientCredential etcd) {

    public static final int DEFAULT_JOIN_NODE_PORT = 30090;

    public ServicesConfig {
        ImageReference.requireDigest(joinServiceImage, "the join service image");
        ImageReference.requireDigest(kmsImage, "the KMS image");
        requireBytes(measurementsJson, "measurementsJson");
        requireBytes(measurementsSignature, "measurementsSignature");
        requireText(measurementsPublicKeyPem, "measurementsPublicKeyPem");
        requireText(ekCaPem, "ekCaPem");
        requireBytes(masterSecret, "masterSecret");
        requireBytes(salt, "salt");
        requireBytes(measurementSalt, "measurementSalt");
        requireText(apiServerEndpoint, "apiServerEndpoint");
        Objects.requireNonNull(initNode, "initNode");
        Objects.requireNonNull(etcd, "etcd");
        if (masterSecret.length < 16) {
            throw new IllegalArgumentException("masterSecret must be at least 16 bytes (the KMS refuses shorter), not "
                    + masterSecret.length);
        }
        // The Service API accepts NodePorts only from the cluster's range; 30000-32767 is the default one.
        if (joinNodePort < 30000 || joinNodePort > 32767) {
            throw new IllegalArgumentException("joinNodePort " + joinNodePort + " is outside the NodePort range 30000-32767");
        }
    }

    /** Names the images and the endpoint only: the master secret and salts never reach a log. */
    @Override
    public String toString() {
        return "ServicesConfig[joinServiceImage=" + joinServiceImage + ", kmsImage=" + kmsImage
                + ", apiServerEndpoint=" + apiServerEndpoint + ", joinNodePort=" + joinNodePort + ", initNode=" + initNode
                + ", secrets=<redacted>]";
    }

    private static void requireText(String value, String name) {
        if (Objects.requireNonNull(value, name).isBlank()) {
            throw new IllegalArgumentException(name + " is empty");
        }
    }

    private static void requireBytes(byte[] value, String name) {
        if (Objects.requireNonNull(value, name).length == 0) {
            throw new IllegalArgumentException(name + " is empty");
        }
    }
}
