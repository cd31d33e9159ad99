package dev.sextant.joinapi.identity;

import java.util.Objects;

/**
 * What the aTLS handshake proved about the current caller: its AK's TPM name (AttestedState.akName(), the
 * machine identity bindings use) and the version of the image of the set in force whose PCRs its quote
 * matched (what a ticket records as the node's image).
 */
public record AttestedCaller(byte[] akName, String imageVersion) {
    public AttestedCaller {
        akName = Objects.requireNonNull(akName, "akName").clone();
        Objects.requireNonNull(imageVersion, "imageVersion");
    }

    @Override
    public byte[] akName() {
        return akName.clone();
    }
}
