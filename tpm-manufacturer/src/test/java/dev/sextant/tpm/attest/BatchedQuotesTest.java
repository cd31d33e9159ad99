package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Qualification;
import dev.sextant.attestation.QuoteBatch;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.Reason;
import dev.sextant.attestation.verify.VerifierPolicy;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Batched quotes on a real TPM: six requests arrive while swtpm is busy; the first is quoted alone
 * as soon as the TPM is free, the five that waited behind it share the next quote. Every document
 * passes the production verifier in its own handshake only, and tpm2_checkquote accepts the shared
 * quote with qualifying data recomputed from a leaf and its path.
 */
class BatchedQuotesTest {
    private static final byte[] USER_DATA = "SHA-256 of this handshake's SPKI".getBytes(StandardCharsets.UTF_8);
    private static final List<byte[]> NONCES = IntStream.range(0, 6)
            .mapToObj(i -> ("TLS random of handshake " + i).getBytes(StandardCharsets.UTF_8)).toList();

    private static Swtpm swtpm;
    private static TpmAttester attester;
    private static final List<AttestationDocument> documents = new ArrayList<>();

    @BeforeAll
    static void sixRequestsWhileTheTpmIsBusy() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.provisioned();
        TpmClient client = swtpm.client();
        attester = new TpmAttester(client, Path.of("/nonexistent"));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread busy = new Thread(() -> {
            try {
                client.exclusive(() -> {   // another user of the TPM, mid-command
                    held.countDown();
                    return release.await(30, TimeUnit.SECONDS);
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        busy.start();
        held.await();
        List<FutureTask<AttestationDocument>> requests = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (byte[] nonce : NONCES) {
            FutureTask<AttestationDocument> request = new FutureTask<>(
                    () -> attester.attest(Purpose.ATLS_SERVER, nonce, USER_DATA));
            requests.add(request);
            Thread t = new Thread(request);
            threads.add(t);
            t.start();
            awaitWaiting(t); // in order: the first leads (and waits for the TPM), the others queue behind it
        }
        release.countDown();
        for (FutureTask<AttestationDocument> request : requests) {
            documents.add(request.get(30, TimeUnit.SECONDS));
        }
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(Thread.State.WAITING, t.getState());
    }

    @AfterAll
    static void stop() throws Exception {
        if (attester != null) {
            attester.close();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("the first request is quoted alone, the five that waited behind it share one quote")
    void twoQuotesForSixRequests() {
        assertEquals(2, attester.quotes());
        assertTrue(documents.get(0).getBatchPathList().isEmpty());
        for (AttestationDocument doc : documents.subList(1, 6)) {
            assertEquals(documents.get(1).getQuotes(0), doc.getQuotes(0));
            assertTrue(doc.getBatchPathCount() > 0 && doc.getBatchPathCount() <= 3);
        }
    }

    @Test
    @DisplayName("every document passes the production verifier in its own handshake, and is refused in a batch-mate's")
    void eachDocumentVerifiesForItsOwnNonceOnly() throws Exception {
        TreeMap<Integer, ExpectedValue> expected = new TreeMap<>();
        expected.put(15, new ExpectedValue(new byte[32], false));
        DocumentVerifier verifier = new DocumentVerifier(new VerifierPolicy(
                new Measurements(Variant.QEMU_VTPM, expected), AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
        for (int i = 0; i < NONCES.size(); i++) {
            verifier.verify(documents.get(i).toByteArray(), Purpose.ATLS_SERVER, NONCES.get(i), USER_DATA);
            byte[] mate = NONCES.get(i == 5 ? 4 : 5);
            byte[] doc = documents.get(i).toByteArray();
            AttestationRejected r = assertThrows(AttestationRejected.class,
                    () -> verifier.verify(doc, Purpose.ATLS_SERVER, mate, USER_DATA));
            assertEquals(Reason.NONCE_MISMATCH, r.reason());
        }
    }

    @Test
    @DisplayName("tpm2_checkquote accepts the shared quote with qualifying data recomputed from a leaf and its path")
    void referenceToolAcceptsTheSharedQuote(@TempDir Path dir) throws Exception {
        AttestationDocument doc = documents.get(3);
        QuoteExport.Exported e = QuoteExport.write(doc, dir);
        byte[] root = QuoteBatch.rootOf(Qualification.of(Purpose.ATLS_SERVER, NONCES.get(3), USER_DATA),
                doc.getBatchPathList());
        QuoteExport.Exported recomputed = new QuoteExport.Exported(e.akPub(), e.message(), e.signature(), e.pcrs(),
                HexFormat.of().formatHex(root));
        assertEquals(0, QuoteExportTest.checkquote(recomputed, dir), () -> QuoteExportTest.log(dir));
    }
}
