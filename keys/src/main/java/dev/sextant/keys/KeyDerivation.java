package dev.sextant.keys;

import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * The cluster's key scheme (design decision 8), in one place for the KMS and the nodes: data keys
 * are HKDF-SHA256 (RFC 5869) with IKM = master secret, salt = master salt and info =
 * UTF-8("key-" + id), byte-compatible with the reference key service.
 */
public final class KeyDerivation {
    /** Key ID of the secret every attested node receives; the cluster ID derives from it. */
    public static final String MEASUREMENT_SECRET = "measurementSecret";
    /** Key ID of the endpoint-discovery group key, handed to attested nodes in their join ticket. */
    public static final String DISCOVERY_KEY = "discoveryKey";
    /**
     * Key ID of the discovery CA's Ed25519 seed: the join service and the init node certify members'
     * discovery keys with it; only its public key leaves them.
     */
    public static final String DISCOVERY_CA = "discoveryCa";
    public static final int KEY_BYTES = 32;
    /**
     * HKDF info of the operator credential's Ed25519 seed. Deliberately outside the {@code "key-"}
     * space of {@link #dataKey}: no data-key request, whatever its ID, can return the operator's
     * private key, so a service that hands out data keys cannot hand out the operator's identity.
     */
    public static final String OPERATOR_CREDENTIAL_INFO = "sextant operator credential v1";
    /**
     * HKDF info of the join service role key's Ed25519 seed: the key a control plane's join service
     * proves its role with in every handshake (docs/security.md, "Rejoin knows its cluster"). Outside
     * the {@code "key-"} space for the same reason as the operator's: no data-key request returns it,
     * so only holders of the master secret (control planes, the operator) have it; workers do not.
     */
    public static final String JOIN_SERVICE_ROLE_INFO = "sextant join service role v1";

    /** RFC 5869 caps the output at 255 hash lengths. */
    public static final int MAX_OUTPUT_BYTES = 255 * 32;

    /**
     * The extract step depends only on the master secret and salt, so it runs once here; each request
     * then does just the expand step. Holding the PRK instead of the secret also keeps the raw master
     * secret out of this long-lived object.
     */
    private final byte[] prk;

    public KeyDerivation(byte[] masterSecret, byte[] masterSalt) {
        this.prk = new HKDFBytesGenerator(new SHA256Digest()).extractPRK(masterSalt, masterSecret);
    }

    /**
     * The data key for {@code id}. The id is not validated here (the endpoint does that); any string
     * gives a well-defined key.
     *
     * @param length 1 to {@link #MAX_OUTPUT_BYTES} bytes
     */
    public byte[] dataKey(String id, int length) {
        byte[] info = ("key-" + id).getBytes(StandardCharsets.UTF_8);
        return expand(HKDFParameters.skipExtractParameters(prk, info), length);
    }

    /**
     * The 32-byte Ed25519 seed of the operator's credential: HKDF-SHA256 with IKM = master secret,
     * salt = master salt and info = {@link #OPERATOR_CREDENTIAL_INFO}. The operator derives it on
     * their own machine from the master secret file; whoever holds the master secret can derive
     * its public key to check the operator's proofs.
     */
    public byte[] operatorCredentialSeed() {
        byte[] info = OPERATOR_CREDENTIAL_INFO.getBytes(StandardCharsets.UTF_8);
        return expand(HKDFParameters.skipExtractParameters(prk, info), KEY_BYTES);
    }

    /** The 32-byte Ed25519 seed of the join service role key: HKDF with info {@link #JOIN_SERVICE_ROLE_INFO}. */
    public byte[] joinServiceRoleSeed() {
        byte[] info = JOIN_SERVICE_ROLE_INFO.getBytes(StandardCharsets.UTF_8);
        return expand(HKDFParameters.skipExtractParameters(prk, info), KEY_BYTES);
    }

    /** HKDF(measurement secret, measurement salt, "key-clusterID"): what PCR 15 is marked with. */
    public static byte[] clusterId(byte[] measurementSecret, byte[] measurementSalt) {
        return hkdfSha256(measurementSecret, measurementSalt, "key-clusterID".getBytes(StandardCharsets.UTF_8), KEY_BYTES);
    }

    /** Plain HKDF-SHA256 (extract and expand), exposed for test vectors. */
    public static byte[] hkdfSha256(byte[] ikm, byte[] salt, byte[] info, int length) {
        return expand(new HKDFParameters(ikm, salt, info), length);
    }

    private static byte[] expand(HKDFParameters parameters, int length) {
        if (length < 1 || length > MAX_OUTPUT_BYTES) {
            throw new IllegalArgumentException("HKDF-SHA256 output length must be 1.." + MAX_OUTPUT_BYTES
                    + ", got " + length);
        }
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(parameters);
        byte[] out = new byte[length];
        hkdf.generateBytes(out, 0, length);
        return out;
    }
}
