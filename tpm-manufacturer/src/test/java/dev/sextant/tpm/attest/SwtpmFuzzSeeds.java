package dev.sextant.tpm.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.testkit.FuzzSeeds;
import dev.sextant.attestation.testkit.SoftwareTpmOptions;
import dev.sextant.attestation.testkit.TestEvent;
import dev.sextant.attestation.testkit.TestEventLog;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpm.command.AkTemplate;
import dev.sextant.tpmmanufacturer.provision.AkProvisioner;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes fuzz seeds made by a real swtpm through {@link TpmAttester} into the attestation module's
 * test resources (scripts/fuzz.sh --seeds): attestation documents for DocumentVerifierFuzzTest, the
 * EK CA that signed their certificates ({@code fixtures/fuzz/swtpm-ek-ca.der}, which that fuzz test
 * trusts, so the valid documents pass every check), and their AK public areas, quotes and signatures
 * for TpmStructuresFuzzTest. Each document is made for {@link FuzzSeeds#NONCE} and
 * {@link FuzzSeeds#USER_DATA}, as the fuzz test verifies, unless its name says what differs; the
 * invalid ones reach the later checks (purpose, nonce, user data, event log replay, measurements).
 * Arguments: the attestation module's src/test/resources, and a real firmware event log
 * (measured-boot's captured boot of the node image).
 */
public final class SwtpmFuzzSeeds {
    private SwtpmFuzzSeeds() {}

    public static void main(String[] args) throws Exception {
        Path res = Path.of(args[0]);
        byte[] realBootLog = Files.readAllBytes(Path.of(args[1]));
        Path docs = res.resolve("dev/sextant/attestation/verify/DocumentVerifierFuzzTestInputs/verify");
        Path structures = res.resolve("dev/sextant/attestation/tpmstructures/TpmStructuresFuzzTestInputs");
        Path scratch = Files.createTempDirectory("sextant-fuzz-seeds-");
        Path log = scratch.resolve("binary_bios_measurements");
        List<TestEvent> events = SoftwareTpmOptions.defaults().events();
        try (Swtpm tpm = Swtpm.provisioned(AkTemplate.ECC_P256)) {
            write(res.resolve("fixtures/fuzz/swtpm-ek-ca.der"), tpm.ca().certificate().getEncoded());
            // The PCRs the event log describes, so that the log replays to the quoted values.
            for (TestEvent e : events) {
                tpm.client().pcr().extend(e.pcr(), MessageDigest.getInstance("SHA-256").digest(e.data()));
            }
            Files.write(log, TestEventLog.write(events));
            try (TpmAttester ecc = new TpmAttester(tpm.client(), log)) {
                AttestationDocument valid = ecc.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA);
                write(docs.resolve("swtpm-ecc-valid"), valid.toByteArray());
                structureSeeds(structures, "swtpm-doc-ecc", valid);
                write(docs.resolve("swtpm-ecc-other-purpose"),
                        ecc.attest(Purpose.VERIFY, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).toByteArray());
                write(docs.resolve("swtpm-ecc-other-nonce"), ecc.attest(Purpose.ATLS_SERVER,
                        "another nonce".getBytes(StandardCharsets.UTF_8), FuzzSeeds.USER_DATA).toByteArray());
                write(docs.resolve("swtpm-ecc-other-user-data"),
                        ecc.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, new byte[] {1, 2, 3}).toByteArray());
                AttestationDocument batched = batched(ecc);
                write(docs.resolve("swtpm-ecc-batched"), batched.toByteArray());
                structureSeeds(structures, "swtpm-doc-ecc-batched", batched);
                Files.write(log, realBootLog);
                write(docs.resolve("swtpm-ecc-real-boot-log"),
                        ecc.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).toByteArray());
                Files.delete(log);
                write(docs.resolve("swtpm-ecc-no-event-log"),
                        ecc.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).toByteArray());
            }
            // A TPM provisioned before ECC AKs: the same TPM with an RSA AK and its certificate (the
            // provisioner keeps a certificate its CA issued, so the ECC AK's goes first).
            tpm.client().nv().undefineSpace(NvIndices.AK_CERT);
            new AkProvisioner(tpm.client(), tpm.ca().certificate(), tpm.ca().key()).provision(AkTemplate.RSA_2048);
            Files.write(log, TestEventLog.write(events));
            try (TpmAttester rsa = new TpmAttester(tpm.client(), log)) {
                AttestationDocument valid = rsa.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA);
                write(docs.resolve("swtpm-rsa-valid"), valid.toByteArray());
                structureSeeds(structures, "swtpm-doc-rsa", valid);
                write(docs.resolve("swtpm-rsa-batched"), batched(rsa).toByteArray());
                // Last, as it changes what every later quote reports: PCR 0, which the fuzz policy enforces.
                tpm.client().pcr().extend(0, new byte[32]);
                write(docs.resolve("swtpm-rsa-pcr0-measured"),
                        rsa.attest(Purpose.ATLS_SERVER, FuzzSeeds.NONCE, FuzzSeeds.USER_DATA).toByteArray());
            }
        } finally {
            Files.deleteIfExists(log);
            Files.delete(scratch);
        }
    }

    /**
     * A document whose quote it shared with concurrent requests (a batch path leads from its
     * qualification to the quoted root): requests arriving while a quote is under way wait and share
     * the next one, so eight at once make at least one shared quote; tried again if none waited.
     */
    private static AttestationDocument batched(TpmAttester attester) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 20; round++) {
                List<Future<AttestationDocument>> docs = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    byte[] nonce = i == 0 ? FuzzSeeds.NONCE : new byte[] {(byte) i, (byte) round};
                    docs.add(pool.submit(() -> attester.attest(Purpose.ATLS_SERVER, nonce, FuzzSeeds.USER_DATA)));
                }
                AttestationDocument ours = docs.get(0).get();
                for (Future<AttestationDocument> f : docs) {
                    f.get();
                }
                if (ours.getBatchPathCount() > 0) {
                    return ours;
                }
            }
            throw new IllegalStateException("no request shared a quote in 20 rounds of 8");
        } finally {
            pool.shutdownNow();
        }
    }

    private static void structureSeeds(Path dir, String name, AttestationDocument doc) throws Exception {
        write(dir.resolve("tpmtPublic").resolve(name + "-ak.tpmt_public"), doc.getAkPublic().toByteArray());
        write(dir.resolve("tpmsAttest").resolve(name + "-quote.tpms_attest"), doc.getQuotes(0).getAttest().toByteArray());
        write(dir.resolve("tpmtSignature").resolve(name + "-quote.tpmt_signature"),
                doc.getQuotes(0).getSignature().toByteArray());
    }

    private static void write(Path file, byte[] bytes) throws Exception {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
