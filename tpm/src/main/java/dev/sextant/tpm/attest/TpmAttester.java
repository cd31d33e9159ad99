package dev.sextant.tpm.attest;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.attestation.issue.Attester;
import dev.sextant.attestation.issue.QuoteBatcher;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.Qualification;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.proto.v1.Quote;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpm.command.CreatedPrimary;
import dev.sextant.tpm.command.QuoteResult;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpm.command.TpmException;
import dev.sextant.tpm.transport.TpmTarget;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Map;
import java.util.SortedMap;

/**
 * The qemu-vtpm attester: quotes all 24 SHA-256 PCRs with the AK and packs the evidence into an
 * {@link AttestationDocument}. Thread-safe: requests that arrive while the TPM is quoting share the
 * next quote ({@link QuoteBatcher}), each document carrying the path from its own qualification to
 * the quoted root; each quote holds the client's lock for its quote and PCR read.
 */
public final class TpmAttester implements Attester, AutoCloseable {
    public static final Path DEFAULT_EVENT_LOG = Path.of("/sys/kernel/security/tpm0/binary_bios_measurements");
    /** A PCR extended between quote and read forces a new quote; a few rounds settle any boot. */
    private static final int MAX_QUOTE_ROUNDS = 5;
    /** Requests one quote may serve by default: a path of at most 6 steps, 204 bytes per document. */
    public static final int MAX_BATCH = 64;

    private final TpmClient client;
    private final boolean ownsClient;
    private final Path eventLog;
    private final CreatedPrimary ak;
    private final byte[] ekCertificate;
    private final byte[] akCertificate;
    private final QuoteBatcher<Quoted> batcher;

    /** One quote and the event log read right after it: every document the quote serves carries both. */
    private record Quoted(Quote quote, ByteString eventLog) {}

    /** Uses {@code client} (not closed by {@link #close()}) and the default event log path. */
    public TpmAttester(TpmClient client) throws AttestationException {
        this(client, DEFAULT_EVENT_LOG);
    }

    public TpmAttester(TpmClient client, Path eventLog) throws AttestationException {
        this(client, eventLog, MAX_BATCH);
    }

    /** {@code maxBatch} 1: one quote per request, as before batching (the benchmark's baseline). */
    public TpmAttester(TpmClient client, Path eventLog, int maxBatch) throws AttestationException {
        this(client, eventLog, maxBatch, false);
    }

    private TpmAttester(TpmClient client, Path eventLog, int maxBatch, boolean ownsClient) throws AttestationException {
        this.client = client;
        this.batcher = new QuoteBatcher<>(maxBatch,
                root -> new Quoted(client.exclusive(() -> quoteConsistently(root)), ByteString.copyFrom(readEventLog())));
        this.ownsClient = ownsClient;
        this.eventLog = eventLog;
        this.ekCertificate = readCertificate(NvIndices.EK_CERT_RSA, "EK");
        this.akCertificate = readCertificate(NvIndices.AK_CERT, "AK");
        try {
            this.ak = client.createAk(templateOf(akCertificate));
        } catch (TpmException e) {
            throw new AttestationException("loading the AK: " + e.getMessage(), e);
        }
    }

    /**
     * The AK is re-derived from the template whose key its certificate certifies: a TPM provisioned
     * with an RSA AK keeps quoting with it, so its bindings at the join service stay valid.
     */
    private static AkTemplate templateOf(byte[] akCertificate) throws AttestationException {
        PublicKey certified;
        try {
            certified = CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(akCertificate)).getPublicKey();
        } catch (CertificateException e) {
            throw new AttestationException("the AK certificate in NV is not an X.509 certificate: " + e.getMessage(), e);
        }
        return AkTemplate.certifying(certified).orElseThrow(() -> new AttestationException(
                "the AK certificate in NV certifies a key of kind " + certified.getAlgorithm() + ", which no AK template makes"));
    }

    /** Opens the TPM named by a CLI {@code --tpm} argument; {@link #close()} closes it too. */
    public static TpmAttester open(String tpmArgument, Path eventLog) throws AttestationException {
        TpmClient client;
        try {
            client = TpmClient.open(TpmTarget.parse(tpmArgument));
        } catch (TpmException e) {
            throw new AttestationException("opening TPM " + tpmArgument + ": " + e.getMessage(), e);
        }
        try {
            client.startup();
            return new TpmAttester(client, eventLog, MAX_BATCH, true);
        } catch (TpmException | AttestationException e) {
            closeQuietly(client);
            throw e instanceof AttestationException a ? a
                    : new AttestationException("starting TPM " + tpmArgument + ": " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(TpmClient client) {
        try {
            client.close();
        } catch (IOException ignored) {
            // Already failing; the original error is the one worth reporting.
        }
    }

    private byte[] readCertificate(int index, String what) throws AttestationException {
        try {
            return client.nv().read(index);
        } catch (TpmException e) {
            throw new AttestationException(String.format("reading the %s certificate from NV index 0x%08x"
                    + " (was the TPM provisioned?): %s", what, index, e.getMessage()), e);
        }
    }

    /** Quotes made so far (fewer than documents when requests shared them). */
    public long quotes() { return batcher.quotes(); }

    /** The AK's TPMT_PUBLIC as the TPM returned it. */
    public byte[] akPublic() { return ak.tpmtPublic(); }

    @Override
    public AttestationDocument attest(Purpose purpose, byte[] nonce, byte[] userData) throws AttestationException {
        QuoteBatcher.Batched<Quoted> batched = batcher.quote(Qualification.of(purpose, nonce, userData));
        return AttestationDocument.newBuilder()
                .setVariant(Variant.QEMU_VTPM.id())
                .setAkPublic(ByteString.copyFrom(ak.tpmtPublic()))
                .addQuotes(batched.quote().quote())
                .addAllBatchPath(batched.path())
                .setEventLog(batched.quote().eventLog())
                .setEkCertificate(ByteString.copyFrom(ekCertificate))
                .setAkCertificate(ByteString.copyFrom(akCertificate))
                .setUserData(ByteString.copyFrom(userData))
                .build();
    }

    // Quote first, read after: if the read does not digest to the quoted pcrDigest a PCR moved in
    // between, and a verifier would reject the pair, so quote again.
    private Quote quoteConsistently(byte[] qualifyingData) throws AttestationException {
        try {
            for (int round = 0; round < MAX_QUOTE_ROUNDS; round++) {
                QuoteResult q = client.quote(ak.handle(), qualifyingData);
                SortedMap<Integer, byte[]> pcrs = client.pcr().readAll(TpmAlg.SHA256);
                byte[] quoted = QuotedPcrDigest.parse(q.attest()).pcrDigest();
                byte[] read = digestOf(pcrs);
                if (MessageDigest.isEqual(quoted, read)) {
                    Quote.Builder b = Quote.newBuilder().setHashAlgorithm(TpmAlg.SHA256)
                            .setAttest(ByteString.copyFrom(q.attest()))
                            .setSignature(ByteString.copyFrom(q.signature()));
                    for (Map.Entry<Integer, byte[]> e : pcrs.entrySet()) {
                        b.putPcrs(e.getKey(), ByteString.copyFrom(e.getValue()));
                    }
                    return b.build();
                }
            }
        } catch (TpmException e) {
            throw new AttestationException("quoting: " + e.getMessage(), e);
        } catch (TpmFormatException e) {
            throw new AttestationException("the TPM returned a malformed quote: " + e.getMessage(), e);
        }
        throw new AttestationException("PCRs changed during each of " + MAX_QUOTE_ROUNDS + " quote rounds");
    }

    static byte[] digestOf(SortedMap<Integer, byte[]> pcrs) {
        return Sha256.of(pcrs.values().toArray(byte[][]::new));
    }

    private byte[] readEventLog() throws AttestationException {
        try {
            return Files.readAllBytes(eventLog);
        } catch (NoSuchFileException e) {
            return new byte[0];   // no firmware log (e.g. swtpm without a boot): the verifier decides
        } catch (IOException e) {
            throw new AttestationException("reading the event log " + eventLog + ": " + e, e);
        }
    }

    private void flushQuietly() {
        try {
            client.flushContext(ak.handle());
        } catch (TpmException ignored) {
            // Best effort: the key is re-derivable and a resource manager flushes it on close anyway.
        }
    }

    @Override
    public void close() throws IOException {
        flushQuietly();
        if (ownsClient) {
            client.close();
        }
    }
}
