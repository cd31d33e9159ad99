package dev.sextant.diskcrypt;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * A cheap verifier of the key in key slot 0, kept in the Sextant token beside the key slot: a node
 * waiting for its key turns a wrong one away with two HMACs instead of an argon2id derivation, so
 * a stranger's guesses cost the right key nothing.
 *
 * <p>{@code value = HMAC-SHA256(key = HKDF-SHA256(disk key, info "sextant check value"), data = disk UUID)}.
 *
 * <p>It does not make the key easier to guess. Argon2id in a key slot slows down guessing a
 * low-entropy passphrase; the keys in Sextant's key slots are not passphrases but 32 random bytes
 * (the boot passphrase) or 32 HKDF bytes of the cluster's master secret, and 2^256 guesses stay
 * out of reach at HMAC speed as much as at argon2id speed. The value is a PRF output under a key
 * derived for this purpose only (the HKDF label keeps it apart from every other use of the disk
 * key), so it reveals nothing of the key beyond "this guess is wrong", which the LUKS header's
 * own digest already tells anyone holding the header. The disk UUID as data ties the value to this
 * disk: a value copied from another disk's header matches no key of this one.
 */
public final class KeyCheckValue {
    static final int BYTES = 32;
    private static final String HMAC = "HmacSHA256";
    private static final byte[] LABEL = "sextant check value".getBytes(StandardCharsets.US_ASCII);

    private final String diskUuid;
    private final byte[] value;

    private KeyCheckValue(String diskUuid, byte[] value) {
        this.diskUuid = diskUuid;
        this.value = value;
    }

    /** The check value of {@code key} for the disk {@code diskUuid} (lower case). */
    static KeyCheckValue of(byte[] key, String diskUuid) {
        return new KeyCheckValue(diskUuid, compute(key, diskUuid));
    }

    /** The value as the token stores it (base64), read back for the disk {@code diskUuid}. */
    static KeyCheckValue decode(String diskUuid, String base64) throws DiskCryptException {
        return new KeyCheckValue(diskUuid, bytesOf(base64));
    }

    /** The stored value's bytes; throws unless it is base64 of exactly {@value #BYTES} bytes. */
    static byte[] bytesOf(String base64) throws DiskCryptException {
        byte[] value;
        try {
            value = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new DiskCryptException("the check value is not base64");
        }
        if (value.length != BYTES) {
            throw new DiskCryptException("the check value has " + value.length + " bytes, not " + BYTES);
        }
        return value;
    }

    String encoded() {
        return Base64.getEncoder().encodeToString(value);
    }

    /** True when {@code key} is the key this value was made for; compared in constant time. */
    public boolean matches(byte[] key) {
        return MessageDigest.isEqual(compute(key, diskUuid), value);
    }

    private static byte[] compute(byte[] key, String diskUuid) {
        byte[] prk = null;
        byte[] checkKey = null;
        try {
            Mac mac = Mac.getInstance(HMAC);
            // HKDF-SHA256 (RFC 5869): extract with the default all-zero salt, then one block of expand.
            mac.init(new SecretKeySpec(new byte[32], HMAC));
            prk = mac.doFinal(key);
            mac.init(new SecretKeySpec(prk, HMAC));
            mac.update(LABEL);
            checkKey = mac.doFinal(new byte[] {1});
            mac.init(new SecretKeySpec(checkKey, HMAC));
            return mac.doFinal(diskUuid.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        } finally {
            wipe(prk);
            wipe(checkKey);
        }
    }

    private static void wipe(byte[] secret) {
        if (secret != null) {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /** Never the value itself: it is no secret, but it has no business in a log either. */
    @Override
    public String toString() {
        return "check value of state disk " + diskUuid;
    }
}
