package dev.sextant.joinapi.controlplane;

import dev.sextant.keys.operator.OperatorCredential;
import dev.sextant.keys.role.JoinServiceRoleKey;
import com.google.protobuf.ByteString;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import dev.sextant.proto.v1.SignedMeasurements;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a control plane's {@link HandOver} from the service's files at every control-plane join, so a
 * rotated measurement set or EK CA is handed on as the service holds it now. The master secret files
 * are the KMS's own (a control plane's KMS and join service share them) and are checked against the
 * KMS's sizes, so what the node receives is what its own KMS will accept. A file that cannot be read is
 * INTERNAL with a message naming which one, never a path or content; the cause is for the log.
 */
@Singleton
public class HandOverFiles {
    private static final Logger LOG = LoggerFactory.getLogger(HandOverFiles.class);
    /** The KMS's floors (128 bits of secret, 256 of salt) and its ceiling against a wrong mount. */
    static final int MIN_SECRET_BYTES = 16;
    static final int MIN_SALT_BYTES = 32;
    static final int MAX_KEY_FILE_BYTES = 4096;

    private final Optional<JoinServiceConfig.MasterSecret> masterSecret;
    private final JoinServiceConfig.Measurements measurements;
    private final Optional<Path> ekCaFile;

    public HandOverFiles(JoinServiceConfig config) {
        this.masterSecret = config.masterSecret();
        this.measurements = config.measurements();
        this.ekCaFile = config.ekCaFile();
    }

    /** NO_MASTER_SECRET where this service has none: it admits no control plane. */
    public HandOver read() throws Refusal {
        JoinServiceConfig.MasterSecret files = masterSecret.orElseThrow(() -> new Refusal(JoinRefusal.NO_MASTER_SECRET,
                "this join service holds no master secret (" + JoinServiceConfig.MASTER_SECRET_FILE
                        + ") and so admits no control plane: ask a control plane's join service, or join as a worker"));
        byte[] secret = keyFile("master secret", files.file(), MIN_SECRET_BYTES);
        byte[] salt = new byte[0];
        try {
            salt = keyFile("master salt", files.saltFile(), MIN_SALT_BYTES);
            return new HandOver(secret, salt, signedMeasurements(), ekCaPem());
        } catch (Refusal | RuntimeException e) {
            Arrays.fill(secret, (byte) 0);
            Arrays.fill(salt, (byte) 0);
            throw e;
        }
    }

    /**
     * The operator credential's public key, derived from the master secret as the operator derives its
     * private key on their own machine (keys {@code OperatorCredential}); the secret is zeroed at once.
     * NO_MASTER_SECRET where this service has none: it serves the operator nothing.
     */
    public byte[] operatorPublicKey() throws Refusal {
        JoinServiceConfig.MasterSecret files = masterSecret.orElseThrow(() -> new Refusal(JoinRefusal.NO_MASTER_SECRET,
                "this join service holds no master secret (" + JoinServiceConfig.MASTER_SECRET_FILE
                        + ") and so cannot check the operator's proof: ask a control plane's join service"));
        byte[] secret = keyFile("master secret", files.file(), MIN_SECRET_BYTES);
        byte[] salt = new byte[0];
        try {
            salt = keyFile("master salt", files.saltFile(), MIN_SALT_BYTES);
            return OperatorCredential.of(secret, salt).publicKey();
        } finally {
            Arrays.fill(secret, (byte) 0);
            Arrays.fill(salt, (byte) 0);
        }
    }

    /**
     * The cluster's join service role key (keys {@code JoinServiceRoleKey}), derived from the master
     * secret files, which are zeroed at once; empty where this service holds no master secret (it then
     * proves no control-plane role, and nodes whose TPM record names the role key do not rejoin through it).
     */
    public Optional<JoinServiceRoleKey> joinServiceRoleKey() throws Refusal {
        if (masterSecret.isEmpty()) {
            return Optional.empty();
        }
        byte[] secret = keyFile("master secret", masterSecret.get().file(), MIN_SECRET_BYTES);
        byte[] salt = new byte[0];
        try {
            salt = keyFile("master salt", masterSecret.get().saltFile(), MIN_SALT_BYTES);
            return Optional.of(JoinServiceRoleKey.of(secret, salt));
        } finally {
            Arrays.fill(secret, (byte) 0);
            Arrays.fill(salt, (byte) 0);
        }
    }

    private static byte[] keyFile(String what, Path file, int minBytes) throws Refusal {
        byte[] content;
        try (InputStream in = Files.newInputStream(file)) {
            content = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "this join service cannot read its " + what + " file", e);
        }
        if (content.length < minBytes || content.length > MAX_KEY_FILE_BYTES) {
            int length = content.length;
            Arrays.fill(content, (byte) 0);
            throw new Refusal(JoinRefusal.INTERNAL, "this join service's " + what + " file holds " + length
                    + " bytes, not " + minBytes + " to " + MAX_KEY_FILE_BYTES + " as the KMS requires");
        }
        return content;
    }

    private SignedMeasurements signedMeasurements() throws Refusal {
        Path file = measurements.file();
        try {
            return SignedMeasurements.newBuilder()
                    .setJson(ByteString.copyFrom(Files.readAllBytes(file)))
                    .setSignature(ByteString.copyFrom(Files.readAllBytes(MeasurementsFile.signatureFile(file))))
                    .setPublicKeyPem(Files.readString(measurements.publicKeyFile()))
                    .build();
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "this join service cannot read its signed measurements", e);
        }
    }

    private String ekCaPem() throws Refusal {
        if (ekCaFile.isEmpty()) {
            LOG.warn("{}=true: a joining control plane's ticket carries no EK CA, so its join service will trust any AK too",
                    JoinServiceConfig.INSECURE_TRUST_ANY_AK);
            return "";
        }
        try {
            return Files.readString(ekCaFile.get());
        } catch (IOException e) {
            throw new Refusal(JoinRefusal.INTERNAL, "this join service cannot read its EK CA bundle", e);
        }
    }
}
