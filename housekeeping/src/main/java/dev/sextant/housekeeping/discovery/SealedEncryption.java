package dev.sextant.housekeeping.discovery;

import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.EncryptHeader;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.Util;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.Key;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * JGroups' SYM_ENCRYPT with AES-256-GCM instead of its unauthenticated CBC default. Stock
 * SYM_ENCRYPT initialises ciphers with an IvParameterSpec (no GCM) and lets messages without a
 * payload (GMS join requests, heartbeats) pass with only a header, so a node without the group key
 * could still join. Here SERIALIZE sits directly above this protocol and turns every message,
 * headers included, into a payload; a message that arrives without one, or whose tag does not
 * verify, was not sent by a key holder and is dropped.
 */
final class SealedEncryption extends SYM_ENCRYPT {
    static final String ALGORITHM = "AES/GCM/NoPadding";
    private static final int TAG_BITS = 128;
    static final int IV_BYTES = 12;
    /** JGroups keys headers by protocol ID; a subclass needs its own, from the range left to applications. */
    static final short PROTOCOL_ID = 1901;

    static {
        if (ClassConfigurator.getProtocolId(SealedEncryption.class) == 0) {
            ClassConfigurator.addProtocol(PROTOCOL_ID, SealedEncryption.class);
        }
    }

    private final LongAdder foreign = new LongAdder();

    SealedEncryption(byte[] groupKey) {
        if (groupKey.length != 32) {
            throw new IllegalArgumentException("the discovery group key must be 32 bytes, got " + groupKey.length);
        }
        symAlgorithm(ALGORITHM);
        symIvLength(IV_BYTES);
        setSecretKey(new SecretKeySpec(groupKey, "AES"));
    }

    // Fresh Cipher per message: GCM forbids re-using (key, IV), and JGroups' pool would re-init the same object.
    @Override
    protected byte[] code(byte[] buf, int offset, int length, byte[] iv, boolean decode) throws Exception {
        if (iv == null || iv.length != IV_BYTES) {
            throw new SecurityException("discovery message without a " + IV_BYTES + "-byte nonce");
        }
        Cipher cipher = Cipher.getInstance(ALGORITHM);
        cipher.init(decode ? Cipher.DECRYPT_MODE : Cipher.ENCRYPT_MODE, secret_key, new GCMParameterSpec(TAG_BITS, iv));
        return cipher.doFinal(buf, offset, length);
    }

    /*
     * Whatever a key holder did not seal is dropped quietly and counted: a message without a header
     * (anyone who reaches the port speaks JGroups in clear text), one under another key, and one whose
     * header was copied from sniffed traffic but whose nonce or tag does not verify. JGroups logs an
     * ERROR or WARN for each of these, which would let any host on the network fill the journal.
     */

    @Override
    public Object up(Message msg) {
        if (msg.getHeader(id) == null) {
            foreign.increment();
            return null;
        }
        return super.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        int before = batch.size();
        batch.removeIf(msg -> msg.getHeader(id) == null, true);
        foreign.add(before - batch.size());
        if (!batch.isEmpty()) {
            super.up(batch);
        }
    }

    @Override
    protected Message decrypt(Cipher cipher, Message msg) {
        EncryptHeader header = msg.getHeader(id);
        if (header == null || !Arrays.equals(header.version(), sym_version)) {
            foreign.increment();
            return null;
        }
        try {
            return super.decrypt(cipher, msg);
        } catch (Exception notSealedWithOurKey) {
            foreign.increment();
            return null;
        }
    }

    /** Messages dropped because they were not sealed with this group's key. */
    long foreignMessages() {
        return foreign.sum();
    }

    @Override
    protected Message _decrypt(Cipher ignored, Key key, Message msg, EncryptHeader header) throws Exception {
        if (!msg.hasPayload() || !key.equals(secret_key)) {
            return null;
        }
        byte[] plain = code(msg.getArray(), msg.getOffset(), msg.getLength(), header.iv(), true);
        return header.needsDeserialization() ? Util.messageFromBuffer(plain, 0, plain.length)
                : msg.setArray(plain, 0, plain.length);
    }
}
