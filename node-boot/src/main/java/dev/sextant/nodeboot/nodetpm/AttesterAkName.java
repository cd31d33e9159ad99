package dev.sextant.nodeboot.nodetpm;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Reads the AK name from a document the node's own attester makes: the name is computed from the
 * AK's public area exactly as verifiers compute it, so the binding matches what the join service
 * later sees in this node's handshakes. The document itself is discarded.
 */
@Singleton
final class AttesterAkName implements AkName {
    private final Attester attester;

    AttesterAkName(Attester attester) {
        this.attester = attester;
    }

    @Override
    public String hex() throws IOException {
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        try {
            var document = attester.attest(Purpose.VERIFY, nonce, new byte[0]);
            return HexFormat.of().formatHex(TpmtPublic.parse(document.getAkPublic().toByteArray()).name());
        } catch (Exception e) {
            throw new IOException("reading this node's AK name: " + e.getMessage(), e);
        }
    }
}
