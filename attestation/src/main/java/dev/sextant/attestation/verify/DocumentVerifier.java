package dev.sextant.attestation.verify;

import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.QuoteBatch;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.eventlog.EventLogMismatch;
import dev.sextant.attestation.eventlog.EventLogParser;
import dev.sextant.attestation.eventlog.EventLogReplay;
import dev.sextant.attestation.eventlog.RawEventLog;
import dev.sextant.attestation.policy.ImageMatch;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmsAttest;
import dev.sextant.attestation.tpmstructures.TpmtPublic;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.BatchStep;
import dev.sextant.proto.v1.Quote;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;

/**
 * Verifies a serialized {@link AttestationDocument} against a fixed {@link VerifierPolicy}. Checks,
 * in this order, each failing with {@link AttestationRejected} and the reason in brackets:
 * <ol>
 *   <li>size ≤ 256 KiB and protobuf parse [MALFORMED];</li>
 *   <li>variant equals the policy's [WRONG_VARIANT];</li>
 *   <li>AK TPMT_PUBLIC parses [MALFORMED] and is restricted, sign, fixedTPM, fixedParent
 *       (Part 2 §8.3.3.1: only such a key signs nothing but TPM-generated data) [UNTRUSTED_AK];</li>
 *   <li>AK trust: EK and AK certificates chain to the EK CA and the AK binding matches, or the
 *       insecure any-AK mode, which logs a WARN [UNTRUSTED_AK];</li>
 *   <li>a SHA-256 quote is present and its TPMS_ATTEST / TPMT_SIGNATURE parse as a quote [MALFORMED];</li>
 *   <li>the signature over the raw TPMS_ATTEST verifies with the AK (Part 3 §18.4) [BAD_SIGNATURE];</li>
 *   <li>the batch path has at most {@value QuoteBatch#MAX_DEPTH} steps of SHA-256 hashes [MALFORMED];</li>
 *   <li>extraData (Part 2 §10.12.12) is not the {@link QuoteBatch} root that the batch path leads to
 *       from {@link Qualification#of} another purpose, this nonce and the document's user_data [WRONG_PURPOSE];</li>
 *   <li>document user_data equals the expected user data [KEY_BINDING];</li>
 *   <li>extraData is the root the batch path leads to from {@link Qualification#of} the demanded
 *       purpose, nonce and user_data (without a path: that qualification itself) [NONCE_MISMATCH];</li>
 *   <li>selection is all 24 SHA-256 PCRs and the values digest to pcrDigest [PCR_DIGEST_MISMATCH];</li>
 *   <li>event log, if present, parses [MALFORMED] and replays to the quoted PCRs (PFP §10.2) [EVENT_LOG_MISMATCH];</li>
 *   <li>measurements: every enforced PCR of one image the set admits matches, and that image's version is
 *       the state's [PCR_MISMATCH, naming per image what differs]; the PCRs of a retired image
 *       [IMAGE_RETIRED, naming its version]; warnOnly mismatches become warnings.</li>
 * </ol>
 * No input bytes make it throw anything else.
 */
public final class DocumentVerifier implements AttestationVerifier {
    public static final int MAX_DOCUMENT_BYTES = 256 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(DocumentVerifier.class);
    private static final long AK_ATTRIBUTES =
            TpmtPublic.RESTRICTED | TpmtPublic.SIGN | TpmtPublic.FIXED_TPM | TpmtPublic.FIXED_PARENT;

    private final VerifierPolicy policy;
    private final EkCaTrust ekCaTrust;
    private final Ecdsa ecdsa;

    /** Quote signatures checked with {@link BouncyCastleEcdsa}: no start-up cost. */
    public DocumentVerifier(VerifierPolicy policy) {
        this(policy, new BouncyCastleEcdsa(new SecureRandom()));
    }

    /** Quote signatures checked with {@code ecdsa} (the join service's native implementation). */
    public DocumentVerifier(VerifierPolicy policy, Ecdsa ecdsa) {
        this(policy, ecdsa, EkCaTrust.PKIX);
    }

    /** EK and AK certificate paths built with {@code paths} (a test counts them to see cache hits). */
    DocumentVerifier(VerifierPolicy policy, Ecdsa ecdsa, EkCaTrust.PathBuilder paths) {
        this.policy = policy;
        this.ecdsa = ecdsa;
        this.ekCaTrust = policy.akTrust() instanceof AkTrust.EkCa ca ? new EkCaTrust(ca.anchors(), paths) : null;
    }

    @Override
    public AttestedState verify(byte[] document, Purpose purpose, byte[] nonce, byte[] userData)
            throws AttestationRejected {
        AttestationDocument doc = parse(document);
        // Design decision 2: the document names its variant; a verifier enforces exactly one.
        if (!policy.variant().id().equals(doc.getVariant())) {
            throw new AttestationRejected(Reason.WRONG_VARIANT, "the document is for variant \"" + printable(doc.getVariant())
                    + "\" rather than \"" + policy.variant().id() + "\"");
        }
        TpmtPublic ak = akPublic(doc);
        PublicKey akKey = javaKey(ak);
        byte[] akName = ak.name();
        Optional<EkCaTrust.Checked> chain = trustAk(doc, akKey, akName);
        Quote quote = sha256Quote(doc);
        TpmsAttest attest = parseAttest(quote);
        TpmtSignature signature = parseSignature(quote);
        // Part 3 §18.4.1: TPM2_Quote signs the marshalled TPMS_ATTEST; verified over the received bytes.
        if (!QuoteSignature.verifies(ecdsa, akKey, signature, attest.raw())) {
            throw new AttestationRejected(Reason.BAD_SIGNATURE, "the quote signature does not verify with the AK");
        }
        checkFreshness(doc, attest, purpose, nonce, userData);
        // Part 2 §10.12.4: pcrSelect and pcrDigest describe exactly which values the TPM signed.
        SortedMap<Integer, byte[]> pcrs = QuotedPcrs.check(attest.quote().orElseThrow(), quote);
        replayEventLog(doc, pcrs);
        // Policy: every enforced value of one admitted image must match; warnOnly ones only warn (Constellation's M).
        ImageMatch match = policy.set().match(pcrs);
        if (match instanceof ImageMatch.Retired retired) {
            throw new AttestationRejected(Reason.IMAGE_RETIRED, retired.sentence());
        }
        if (match instanceof ImageMatch.Mismatch mismatch) {
            throw new AttestationRejected(Reason.PCR_MISMATCH, mismatch.sentence());
        }
        ImageMatch.Admitted image = (ImageMatch.Admitted) match;
        image.warnings().forEach(w -> LOG.warn("accepting a warnOnly measurement mismatch: {}", w));
        // Not ekCaTrust::remember: that would dereference a null ekCaTrust (any AK trusted) with nothing to remember.
        chain.ifPresent(checked -> ekCaTrust.remember(checked));
        return new AttestedState(policy.variant(), pcrs, akName, image.warnings(), image.image().imageVersion());
    }

    private static AttestationDocument parse(byte[] document) throws AttestationRejected {
        if (document.length > MAX_DOCUMENT_BYTES) {
            throw new AttestationRejected(Reason.MALFORMED, "the document is " + document.length
                    + " bytes, over the limit of " + MAX_DOCUMENT_BYTES);
        }
        try {
            return AttestationDocument.parseFrom(document);
        } catch (InvalidProtocolBufferException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the document is not an AttestationDocument: " + e.getMessage(), e);
        }
    }

    private static TpmtPublic akPublic(AttestationDocument doc) throws AttestationRejected {
        TpmtPublic ak;
        try {
            ak = TpmtPublic.parse(doc.getAkPublic().toByteArray());
        } catch (TpmFormatException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the AK public area is malformed: " + e.getMessage(), e);
        }
        // Part 1 §25.1 / Part 2 §8.3.3.1: only a restricted signing key refuses to sign data that begins
        // with TPM_GENERATED_VALUE, and fixedTPM|fixedParent keep it inside this TPM.
        if (!ak.has(AK_ATTRIBUTES)) {
            throw new AttestationRejected(Reason.UNTRUSTED_AK, String.format(
                    "the AK attributes 0x%08x lack restricted, sign, fixedTPM or fixedParent", ak.objectAttributes()));
        }
        return ak;
    }

    private static PublicKey javaKey(TpmtPublic ak) throws AttestationRejected {
        try {
            return ak.toJavaPublicKey();
        } catch (TpmFormatException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the AK public area is not a usable key: " + e.getMessage(), e);
        }
    }

    private Optional<EkCaTrust.Checked> trustAk(AttestationDocument doc, PublicKey akKey, byte[] akName) throws AttestationRejected {
        if (ekCaTrust == null) {
            LOG.warn("INSECURE: trusting the AK of this document without any certificate check (insecureTrustAnyAk)");
            return Optional.empty();
        }
        return Optional.of(ekCaTrust.check(doc, akKey, akName));
    }

    private static Quote sha256Quote(AttestationDocument doc) throws AttestationRejected {
        return doc.getQuotesList().stream().filter(q -> q.getHashAlgorithm() == TpmAlg.SHA256).findFirst()
                .orElseThrow(() -> new AttestationRejected(Reason.MALFORMED, "the document has no SHA-256 quote"));
    }

    private static TpmsAttest parseAttest(Quote quote) throws AttestationRejected {
        try {
            TpmsAttest attest = TpmsAttest.parse(quote.getAttest().toByteArray());
            if (attest.quote().isEmpty()) {
                throw new AttestationRejected(Reason.MALFORMED, "the SHA-256 quote's TPMS_ATTEST is not a quote");
            }
            return attest;
        } catch (TpmFormatException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the quote's TPMS_ATTEST is malformed: " + e.getMessage(), e);
        }
    }

    private static TpmtSignature parseSignature(Quote quote) throws AttestationRejected {
        try {
            return TpmtSignature.parse(quote.getSignature().toByteArray());
        } catch (TpmFormatException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the quote's TPMT_SIGNATURE is malformed: " + e.getMessage(), e);
        }
    }

    /**
     * Purpose first: a quote made for another context is a relay whatever data it binds. Then
     * user_data, so that "made for another TLS key" is told apart from "made for another nonce".
     * The leaf is always computed here, never taken from the document, so a batch path can only
     * lead from this handshake's own qualification to the signed root.
     */
    private static void checkFreshness(AttestationDocument doc, TpmsAttest attest, Purpose purpose, byte[] nonce,
            byte[] userData) throws AttestationRejected {
        List<BatchStep> path = doc.getBatchPathList();
        Optional<String> defect = QuoteBatch.defect(path);
        if (defect.isPresent()) {
            throw new AttestationRejected(Reason.MALFORMED, defect.get());
        }
        byte[] docUserData = doc.getUserData().toByteArray();
        // Part 2 §10.12.12: extraData is the qualifyingData the caller passed to TPM2_Quote.
        byte[] extraData = attest.extraData();
        boolean forThisPurpose = MessageDigest.isEqual(extraData,
                QuoteBatch.rootOf(Qualification.of(purpose, nonce, docUserData), path));
        if (!forThisPurpose) {
            for (Purpose other : Purpose.values()) {
                if (other != purpose && MessageDigest.isEqual(extraData,
                        QuoteBatch.rootOf(Qualification.of(other, nonce, docUserData), path))) {
                    throw new AttestationRejected(Reason.WRONG_PURPOSE, "the quote was made for purpose \"" + other
                            + "\", not \"" + purpose + "\" (evidence relayed from another context)");
                }
            }
        }
        // Shared design decision 3: the document carries user_data in clear; it must be this peer's.
        if (!MessageDigest.isEqual(docUserData, userData)) {
            throw new AttestationRejected(Reason.KEY_BINDING,
                    "the document is bound to other user data (another TLS key) than this connection's");
        }
        if (!forThisPurpose) {
            throw new AttestationRejected(Reason.NONCE_MISMATCH,
                    "the quote's qualifying data does not match this nonce and purpose (stale or replayed)");
        }
    }

    private static void replayEventLog(AttestationDocument doc, SortedMap<Integer, byte[]> pcrs) throws AttestationRejected {
        if (doc.getEventLog().isEmpty()) {
            return;
        }
        RawEventLog log;
        try {
            log = new EventLogParser().parse(doc.getEventLog().toByteArray());
        } catch (TpmFormatException e) {
            throw new AttestationRejected(Reason.MALFORMED, "the event log is malformed: " + e.getMessage(), e);
        }
        // PFP §10.2: each PCR with events must equal the fold of SHA-256 extends from its reset value.
        try {
            new EventLogReplay().replay(log, pcrs);
        } catch (EventLogMismatch e) {
            throw new AttestationRejected(Reason.EVENT_LOG_MISMATCH, e.getMessage(), e);
        }
    }


    /** The peer chooses the variant string: keep it short and free of control characters in messages and logs. */
    private static String printable(String untrusted) {
        String cut = untrusted.length() > 40 ? untrusted.substring(0, 40) + "…" : untrusted;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
