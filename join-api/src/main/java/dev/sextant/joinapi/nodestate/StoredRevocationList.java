package dev.sextant.joinapi.nodestate;

/**
 * The revocation list as {@code revocations/list} holds it: the bytes (as the discovery CA signed them, or
 * whatever someone else wrote there: verify before trusting) and the key's modification revision, which a
 * replacement is compared against.
 */
public record StoredRevocationList(byte[] encoded, long modRevision) {
    public StoredRevocationList {
        encoded = encoded.clone();
    }

    @Override
    public byte[] encoded() {
        return encoded.clone();
    }
}
