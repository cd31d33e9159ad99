package dev.sextant.attestation.verify;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.proto.v1.AttestationDocument;

import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * EK/AK certificate sets that {@link EkCaTrust} has fully accepted, so that a node quoting again
 * (every aTLS handshake) does not pay for X.509 parsing and two PKIX path builds each time.
 * <p>
 * What a hit saves is ONLY the part that depends on nothing but the certificate bytes and the
 * anchors: parsing and "chains to a configured EK CA". The key is SHA-256 over the exact DER of the
 * EK certificate, the AK certificate and the intermediates (length-prefixed, in order), so a
 * different or forged certificate is a miss and is checked in full. A hit still re-checks the
 * certificates' validity at the current time, and the caller still compares the certified key
 * with the quoting key and the AK binding every time. Entries are added only after the whole document
 * verified (certificates, quote, freshness, PCRs); the cache is least-recently-used with a fixed capacity. One instance per
 * {@link EkCaTrust}, so a set of anchors never sees another set's entries.
 */
final class VerifiedAkChains {
    /** Distinct nodes a verifier keeps: a cluster's worth; a few MB of parsed certificates at most. */
    static final int DEFAULT_CAPACITY = 1024;

    /** Parsed certificates of one accepted document, and when all of its paths' certificates are valid. */
    record Entry(X509Certificate ek, X509Certificate ak, Instant notBefore, Instant notAfter) {
        boolean validAt(Instant now) {
            return !now.isBefore(notBefore) && !now.isAfter(notAfter);
        }
    }

    private final int capacity;
    private final Map<ByteString, Entry> entries;

    VerifiedAkChains(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ByteString, Entry> eldest) {
                return size() > VerifiedAkChains.this.capacity;
            }
        };
    }

    /** SHA-256 over the length-prefixed DER of EK, AK and intermediate certificates. */
    static ByteString key(AttestationDocument doc) {
        MessageDigest sha256 = Sha256.newDigest();
        update(sha256, doc.getEkCertificate());
        update(sha256, doc.getAkCertificate());
        for (ByteString intermediate : doc.getIntermediateCertificatesList()) {
            update(sha256, intermediate);
        }
        return ByteString.copyFrom(sha256.digest());
    }

    private static void update(MessageDigest digest, ByteString der) {
        int n = der.size();
        digest.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        for (java.nio.ByteBuffer b : der.asReadOnlyByteBufferList()) {
            digest.update(b);
        }
    }

    /** The entry, if present and valid at {@code now}; an entry that has expired is dropped. */
    synchronized Entry find(ByteString key, Instant now) {
        Entry entry = entries.get(key);
        if (entry != null && !entry.validAt(now)) {
            entries.remove(key);
            return null;
        }
        return entry;
    }

    /** Call only once the whole document these certificates came with has verified ({@link EkCaTrust#remember}). */
    synchronized void remember(ByteString key, Entry entry) {
        entries.put(key, entry);
    }

    synchronized int size() {
        return entries.size();
    }
}
