package dev.sextant.attestation.testkit;

import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmWriter;
import dev.sextant.attestation.tpmstructures.TpmsEccParameters;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import org.bouncycastle.util.BigIntegers;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** Everything a {@link SoftwareTpmAttester} computes once: AK public area, certificates, PCRs, log. */
record SoftwareTpmState(byte[] akPublic, byte[] akName, byte[] ekCertificate, byte[] akCertificate,
                        SortedMap<Integer, byte[]> pcrs, SortedMap<Integer, byte[]> reportedPcrs,
                        byte[] selection, byte[] pcrDigest, byte[] eventLog) {
    /** The AK template of the shared design: fixedTPM|fixedParent|sensitiveDataOrigin|userWithAuth|restricted|sign. */
    static final long AK_ATTRIBUTES = TpmtPublic.FIXED_TPM | TpmtPublic.FIXED_PARENT | TpmtPublic.SENSITIVE_DATA_ORIGIN
            | TpmtPublic.USER_WITH_AUTH | TpmtPublic.RESTRICTED | TpmtPublic.SIGN;

    static SoftwareTpmState create(TestPki trusted, KeyPair ak, PublicKey ekKey, SoftwareTpmOptions o)
            throws GeneralSecurityException, CertificateEncodingException {
        long attributes = o.has(Mutation.UNRESTRICTED_AK) ? AK_ATTRIBUTES & ~TpmtPublic.RESTRICTED : AK_ATTRIBUTES;
        byte[] akPublic = akPublic((ECPublicKey) ak.getPublic(), attributes);
        byte[] akName = new TpmWriter().u16(TpmAlg.SHA256).bytes(TestEventLog.sha256(akPublic)).toByteArray();
        TestPki issuer = o.has(Mutation.FOREIGN_CA) ? new TestPki("foreign-ca") : trusted;
        X509Certificate ek = issuer.issueEk(ekKey);
        X509Certificate akCert;
        if (o.has(Mutation.WRONG_AK)) {
            akCert = issuer.issueAk(SoftwareTpmAttester.newAkKey().getPublic(), akName, ek);
        } else if (o.has(Mutation.BROKEN_BINDING)) {
            byte[] otherName = akName.clone();
            otherName[5] ^= 1;
            akCert = issuer.issueAk(ak.getPublic(), otherName, ek);
        } else {
            akCert = issuer.issueAk(ak.getPublic(), akName, ek);
        }
        SortedMap<Integer, byte[]> pcrs = pcrValues(o);
        byte[] eventLog = eventLog(o);
        return new SoftwareTpmState(akPublic, akName, ek.getEncoded(), akCert.getEncoded(), pcrs,
                reported(pcrs, o), selection(o), pcrDigest(pcrs, o), eventLog);
    }

    /**
     * TPMT_PUBLIC of an ECC NIST P-256 ECDSA-SHA256 key, nameAlg SHA-256, kdf NULL (Part 2, §12.2.4),
     * as TPM2_CreatePrimary returns it for the provisioning template.
     */
    static byte[] akPublic(ECPublicKey key, long attributes) {
        return new TpmWriter().u16(TpmAlg.ECC).u16(TpmAlg.SHA256).u32(attributes).sized(new byte[0])
                .u16(TpmAlg.NULL).u16(TpmAlg.ECDSA).u16(TpmAlg.SHA256).u16(TpmsEccParameters.NIST_P256).u16(TpmAlg.NULL)
                .sized(BigIntegers.asUnsignedByteArray(32, key.getW().getAffineX()))
                .sized(BigIntegers.asUnsignedByteArray(32, key.getW().getAffineY()))
                .toByteArray();
    }

    private static SortedMap<Integer, byte[]> pcrValues(SoftwareTpmOptions o) {
        SortedMap<Integer, byte[]> pcrs = new TreeMap<>();
        for (int i = 0; i < 24; i++) {
            pcrs.put(i, o.chosenPcrs().getOrDefault(i, reset(i)).clone());
        }
        SortedSet<Integer> extended = new TreeSet<>();
        for (TestEvent e : o.events()) {
            byte[] start = extended.add(e.pcr()) ? reset(e.pcr()) : pcrs.get(e.pcr());
            pcrs.put(e.pcr(), TestEventLog.sha256(start, TestEventLog.sha256(e.data())));
        }
        return pcrs;
    }

    /** Reset values: all ones for the D-RTM PCRs 17..22, zeros otherwise (PC Client PTP). */
    private static byte[] reset(int pcr) {
        byte[] v = new byte[32];
        if (pcr >= 17 && pcr <= 22) {
            Arrays.fill(v, (byte) 0xff);
        }
        return v;
    }

    private static SortedMap<Integer, byte[]> reported(SortedMap<Integer, byte[]> pcrs, SoftwareTpmOptions o) {
        SortedMap<Integer, byte[]> out = new TreeMap<>(pcrs);
        if (o.has(Mutation.EXTRA_PCR)) {
            out.put(24, new byte[32]);
        }
        if (o.has(Mutation.MISSING_PCR)) {
            out.remove(23);
        }
        return out;
    }

    private static byte[] selection(SoftwareTpmOptions o) {
        SortedSet<Integer> all = new TreeSet<>();
        for (int i = 0; i < (o.has(Mutation.PARTIAL_SELECTION) ? 23 : 24); i++) {
            all.add(i);
        }
        return PcrSelection.encode(TpmAlg.SHA256, all);
    }

    private static byte[] pcrDigest(SortedMap<Integer, byte[]> pcrs, SoftwareTpmOptions o) {
        byte[] digest = TestEventLog.sha256(pcrs.values().toArray(new byte[0][]));
        if (o.has(Mutation.BAD_PCR_DIGEST)) {
            digest[0] ^= 1;
        }
        return digest;
    }

    private static byte[] eventLog(SoftwareTpmOptions o) {
        if (o.events().isEmpty()) {
            return new byte[0];
        }
        byte[] log = TestEventLog.write(o.events());
        if (o.has(Mutation.TAMPER_EVENT_LOG)) {
            // The last event's digest sits just before its 4-byte size and data.
            byte[] lastData = o.events().get(o.events().size() - 1).data();
            log[log.length - lastData.length - 4 - 1] ^= 1;
        }
        return log;
    }
}
