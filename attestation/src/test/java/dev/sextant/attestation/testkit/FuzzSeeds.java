package dev.sextant.attestation.testkit;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.policy.Measurements;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.cert.CertificateEncodingException;
import java.util.List;

/**
 * Writes the fuzz seed corpora and the fuzz CA certificate under src/test/resources. Run once from
 * the attestation module directory (see scripts/fuzz.sh --seeds); the outputs are committed.
 */
public final class FuzzSeeds {
    public static final byte[] NONCE = "fuzz nonce".getBytes(StandardCharsets.UTF_8);
    public static final byte[] USER_DATA = new byte[32];

    private FuzzSeeds() {}

    public static void main(String[] args) throws IOException, CertificateEncodingException {
        Path res = Paths.get(args.length > 0 ? args[0] : "src/test/resources");
        TestPki pki = new TestPki("sextant-fuzz-ek-ca");
        write(res.resolve("fixtures/fuzz/ek-ca.der"), pki.caCertificate().getEncoded());
        Path docs = res.resolve("dev/sextant/attestation/verify/DocumentVerifierFuzzTestInputs/verify");
        write(docs.resolve("valid"), new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults())
                .attest(Purpose.ATLS_SERVER, NONCE, USER_DATA).toByteArray());
        for (Mutation m : List.of(Mutation.TAMPER_EVENT_LOG, Mutation.BROKEN_BINDING, Mutation.FLIP_SIGNATURE)) {
            byte[] doc = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults().with(m))
                    .attest(Purpose.ATLS_SERVER, NONCE, USER_DATA).toByteArray();
            write(docs.resolve(m.name().toLowerCase()), doc);
        }
        Path tpm = res.resolve("dev/sextant/attestation/tpmstructures/TpmStructuresFuzzTestInputs");
        for (String f : List.of("quote-rsa.tpms_attest", "quote-ecc.tpms_attest", "certify-rsa.tpms_attest")) {
            write(tpm.resolve("tpmsAttest").resolve(f), Fixtures.swtpm(f));
        }
        for (String f : List.of("ak-rsa.tpmt_public", "ak-ecc.tpmt_public")) {
            write(tpm.resolve("tpmtPublic").resolve(f), Fixtures.swtpm(f));
        }
        for (String f : List.of("quote-rsa.tpmt_signature", "quote-ecc.tpmt_signature")) {
            write(tpm.resolve("tpmtSignature").resolve(f), Fixtures.swtpm(f));
        }
        write(tpm.resolve("pcrSelection/all-sha256"), Arrays24.allSha256());
        write(res.resolve("dev/sextant/attestation/eventlog/EventLogParserFuzzTestInputs/parse/default"),
                TestEventLog.write(SoftwareTpmOptions.defaults().events()));
        Measurements m = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults()).measurements();
        write(res.resolve("dev/sextant/attestation/policy/MeasurementsJsonFuzzTestInputs/parse/all-pcrs.json"), m.toJson());
    }

    private static void write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }

    /** TPML_PCR_SELECTION of all 24 SHA-256 PCRs. */
    private static final class Arrays24 {
        static byte[] allSha256() {
            java.util.SortedSet<Integer> all = new java.util.TreeSet<>();
            for (int i = 0; i < 24; i++) {
                all.add(i);
            }
            return dev.sextant.attestation.tpmstructures.PcrSelection.encode(dev.sextant.attestation.tpmstructures.TpmAlg.SHA256, all);
        }
    }
}
