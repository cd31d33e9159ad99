package dev.sextant.attestation.testkit;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.issue.QuoteBatcher;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmsAttest;
import dev.sextant.attestation.tpmstructures.TpmWriter;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.QuoteBatch;
import dev.sextant.proto.v1.BatchStep;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.Quote;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.util.BigIntegers;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Signs TPMS_ATTEST quotes "like a TPM" with an in-memory ECC P-256 AK (the template provisioning
 * creates) over chosen PCR values, with EK and AK certificates from a {@link TestPki}. Keys,
 * certificates, PCRs and the event log are made once in the constructor, so a quote costs one ECDSA
 * signature. Thread-safe, and batched like the real attester: concurrent requests share a quote
 * through the same {@link QuoteBatcher}.
 */
public final class SoftwareTpmAttester implements Attester {
    /** Made once: its generator keeps the multiples BouncyCastle precomputes for signing. */
    private static final ECDomainParameters P256 = p256();
    private static final byte[] STALE_NONCE = "a nonce from an earlier handshake".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER_USER_DATA = TestEventLog.sha256("another TLS key".getBytes(StandardCharsets.UTF_8));

    private final SoftwareTpmOptions options;
    private final TestPki trustedPki;
    private final ECPrivateKeyParameters akSigningKey;
    private final SoftwareTpmState state;
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong clock = new AtomicLong(1_000);
    private final QuoteBatcher<Quote> batcher = new QuoteBatcher<>(64, this::quote);

    /** A valid attester with {@link SoftwareTpmOptions#defaults()} and a fresh CA. */
    public SoftwareTpmAttester() {
        this(new TestPki("sextant-test-ek-ca"), SoftwareTpmOptions.defaults());
    }

    public SoftwareTpmAttester(TestPki trustedPki, SoftwareTpmOptions options) {
        this(trustedPki, options, newRsaKey().getPublic());
    }

    /**
     * A machine whose EK certificate certifies {@code ekKey}: benchmarks that make thousands of
     * machines give them one EK key (each still has its own AK, EK certificate and AK certificate),
     * as generating an RSA key (a prime search) would dominate making them.
     */
    public SoftwareTpmAttester(TestPki trustedPki, SoftwareTpmOptions options, PublicKey ekKey) {
        this.options = options;
        this.trustedPki = trustedPki;
        try {
            KeyPair ak = newAkKey();
            this.akSigningKey = new ECPrivateKeyParameters(((ECPrivateKey) ak.getPrivate()).getS(), P256);
            this.state = SoftwareTpmState.create(trustedPki, ak, ekKey, options);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("setting up the software TPM", e);
        }
    }

    /** An ECC P-256 key pair, as the AK is. */
    static KeyPair newAkKey() {
        try {
            return TestPki.generator("EC", 256).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("P-256 is part of every Java platform", e);
        }
    }

    /** An RSA-2048 key pair, as the TPM's EK is. */
    public static KeyPair newRsaKey() {
        try {
            return TestPki.generator("RSA", 2048).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA-2048 is part of every Java platform", e);
        }
    }

    /** Trust anchors a verifier needs to accept this attester's AK (the trusted CA, even under FOREIGN_CA). */
    public List<X509Certificate> anchors() { return List.of(trustedPki.caCertificate()); }

    /** The SHA-256 PCR values every quote reports (before EXTRA_PCR/MISSING_PCR). */
    public SortedMap<Integer, byte[]> pcrValues() { return new TreeMap<>(state.pcrs()); }

    /** Measurements that expect exactly this attester's 24 PCR values, all enforced. */
    public Measurements measurements() {
        SortedMap<Integer, ExpectedValue> expected = new TreeMap<>();
        state.pcrs().forEach((pcr, v) -> expected.put(pcr, new ExpectedValue(v, false)));
        return new Measurements(dev.sextant.attestation.Variant.QEMU_VTPM, expected);
    }

    public byte[] akName() { return state.akName(); }

    @Override
    public AttestationDocument attest(Purpose purpose, byte[] nonce, byte[] userData) {
        Purpose usedPurpose = !options.has(Mutation.OTHER_PURPOSE) ? purpose
                : purpose == Purpose.VERIFY ? Purpose.ATLS_SERVER : Purpose.VERIFY;
        byte[] boundData = options.has(Mutation.OTHER_USER_DATA) ? OTHER_USER_DATA : userData;
        byte[] usedNonce = options.has(Mutation.STALE_NONCE) ? STALE_NONCE : nonce;
        QuoteBatcher.Batched<Quote> batched;
        try {
            batched = batcher.quote(Qualification.of(usedPurpose, usedNonce, boundData));
        } catch (AttestationException e) {
            throw new IllegalStateException("the software TPM does not fail", e);
        }
        return document(batched.quote(), batched.path(), boundData);
    }

    private AttestationDocument document(Quote quote, List<BatchStep> path, byte[] boundData) {
        return AttestationDocument.newBuilder()
                .setVariant(options.has(Mutation.WRONG_VARIANT) ? "other-variant" : options.variant().id())
                .setAkPublic(ByteString.copyFrom(state.akPublic()))
                .addQuotes(quote)
                .addAllBatchPath(path)
                .setEventLog(ByteString.copyFrom(state.eventLog()))
                .setEkCertificate(ByteString.copyFrom(state.ekCertificate()))
                .setAkCertificate(ByteString.copyFrom(state.akCertificate()))
                .setUserData(ByteString.copyFrom(boundData))
                .build();
    }

    /**
     * One quote over the batch of {@code nonces} (one request each, same purpose and user data), as
     * the batcher makes it when these requests wait together: document i carries the path from
     * request i's qualification to the quoted root.
     */
    public List<AttestationDocument> attestTogether(Purpose purpose, List<byte[]> nonces, byte[] userData) {
        QuoteBatch tree = QuoteBatch.of(nonces.stream().map(n -> Qualification.of(purpose, n, userData)).toList());
        Quote quote = quote(tree.root());
        List<AttestationDocument> documents = new ArrayList<>();
        for (int i = 0; i < nonces.size(); i++) {
            documents.add(document(quote, tree.path(i), userData));
        }
        return documents;
    }

    /** Quotes signed so far (fewer than documents when concurrent requests shared them). */
    public long quotes() { return batcher.quotes(); }

    private Quote quote(byte[] qualifyingData) {
        byte[] attest = quoteInfo(qualifyingData);
        byte[] signature = sign(attest);
        if (options.has(Mutation.FLIP_SIGNATURE)) {
            signature[signature.length - 7] ^= 0x10;
        }
        Quote.Builder quote = Quote.newBuilder().setHashAlgorithm(TpmAlg.SHA256)
                .setAttest(ByteString.copyFrom(attest)).setSignature(ByteString.copyFrom(signature));
        state.reportedPcrs().forEach((pcr, v) -> quote.putPcrs(pcr, ByteString.copyFrom(v)));
        return quote.build();
    }

    /** TPMS_ATTEST of type TPM_ST_ATTEST_QUOTE (TPM 2.0 Part 2, §10.12.12). */
    private byte[] quoteInfo(byte[] extraData) {
        return new TpmWriter()
                .u32(TpmsAttest.TPM_GENERATED_VALUE).u16(TpmsAttest.TPM_ST_ATTEST_QUOTE)
                .sized(state.akName()).sized(extraData)
                .u64(clock.incrementAndGet()).u32(1).u32(0).u8(1)
                .u64(0x2023_0101_0000_0000L)
                .bytes(state.selection()).sized(state.pcrDigest())
                .toByteArray();
    }

    /** TPMT_SIGNATURE with TPM_ALG_ECDSA and SHA-256, r and s as long as the order (Part 2, §11.3.4). */
    private byte[] sign(byte[] attest) {
        ECDSASigner ecdsa = new ECDSASigner();
        ecdsa.init(true, new ParametersWithRandom(akSigningKey, random));
        BigInteger[] rs = ecdsa.generateSignature(TestEventLog.sha256(attest));
        return new TpmWriter().u16(TpmAlg.ECDSA).u16(TpmAlg.SHA256)
                .sized(BigIntegers.asUnsignedByteArray(32, rs[0])).sized(BigIntegers.asUnsignedByteArray(32, rs[1]))
                .toByteArray();
    }

    private static ECDomainParameters p256() {
        X9ECParameters curve = CustomNamedCurves.getByName("secp256r1");
        return new ECDomainParameters(curve.getCurve(), curve.getG(), curve.getN(), curve.getH());
    }
}
