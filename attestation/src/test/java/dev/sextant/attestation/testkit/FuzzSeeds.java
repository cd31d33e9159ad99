package dev.sextant.attestation.testkit;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.eventlog.EventLogParser;
import dev.sextant.attestation.eventlog.RawEventLog;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmsAttest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.cert.CertificateEncodingException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Writes the attestation module's fuzz seed corpora and the fuzz CA certificate under
 * src/test/resources (scripts/fuzz.sh --seeds, which first runs fixtures/fuzz/capture-swtpm.sh and
 * tpm-manufacturer's SwtpmFuzzSeeds: what a real swtpm made); the outputs are committed. Arguments:
 * the resources directory, and the event log captured from a real boot of the node image
 * (measured-boot's src/test/resources/boot/mkosi-stub252-eventlog.bin).
 */
public final class FuzzSeeds {
    public static final byte[] NONCE = "fuzz nonce".getBytes(StandardCharsets.UTF_8);
    public static final byte[] USER_DATA = new byte[32];

    private FuzzSeeds() {}

    public static void main(String[] args) throws IOException, CertificateEncodingException, TpmFormatException {
        Path res = Paths.get(args.length > 0 ? args[0] : "src/test/resources");
        TestPki pki = new TestPki("sextant-fuzz-ek-ca");
        write(res.resolve("fixtures/fuzz/ek-ca.der"), pki.caCertificate().getEncoded());
        documents(pki, res.resolve("dev/sextant/attestation/verify/DocumentVerifierFuzzTestInputs/verify"));
        tpmStructures(res.resolve("dev/sextant/attestation/tpmstructures/TpmStructuresFuzzTestInputs"));
        byte[] realBootLog = Files.readAllBytes(Path.of(args[1]));
        eventLogs(res.resolve("dev/sextant/attestation/eventlog/EventLogParserFuzzTestInputs/parse"), realBootLog);
        measurements(pki, res.resolve("dev/sextant/attestation/policy/MeasurementsJsonFuzzTestInputs/parse"));
    }

    /** The software TPM's valid document and one per {@link Mutation}: each breaks exactly one rule. */
    private static void documents(TestPki pki, Path dir) throws IOException {
        write(dir.resolve("valid"), new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults())
                .attest(Purpose.ATLS_SERVER, NONCE, USER_DATA).toByteArray());
        for (Mutation m : Mutation.values()) {
            byte[] doc = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults().with(m))
                    .attest(Purpose.ATLS_SERVER, NONCE, USER_DATA).toByteArray();
            write(dir.resolve(m.name().toLowerCase(Locale.ROOT)), doc);
        }
    }

    /**
     * The swtpm fixtures (fixtures/swtpm/capture.sh), and for the PCR selection parser the
     * TPML_PCR_SELECTION of every quote a real TPM made among the TPMS_ATTEST seeds.
     */
    private static void tpmStructures(Path tpm) throws IOException, TpmFormatException {
        for (String f : List.of("quote-rsa.tpms_attest", "quote-ecc.tpms_attest", "certify-rsa.tpms_attest")) {
            write(tpm.resolve("tpmsAttest").resolve(f), Fixtures.swtpm(f));
        }
        for (String f : List.of("ak-rsa.tpmt_public", "ak-ecc.tpmt_public")) {
            write(tpm.resolve("tpmtPublic").resolve(f), Fixtures.swtpm(f));
        }
        for (String f : List.of("quote-rsa.tpmt_signature", "quote-ecc.tpmt_signature", "certify-rsa.tpmt_signature")) {
            write(tpm.resolve("tpmtSignature").resolve(f), Fixtures.swtpm(f));
        }
        Path selections = tpm.resolve("pcrSelection");
        write(selections.resolve("all-sha256"), PcrSelection.all(TpmAlg.SHA256).raw());
        Set<String> seen = new HashSet<>();
        List<Path> attests;
        try (Stream<Path> files = Files.list(tpm.resolve("tpmsAttest"))) {
            attests = files.sorted().toList();
        }
        for (Path f : attests) {
            TpmsAttest attest;
            try {
                attest = TpmsAttest.parse(Files.readAllBytes(f));
            } catch (TpmFormatException notOneWeRead) {
                continue; // time, NV and audit attestations: no selection in them
            }
            if (attest.quote().isPresent()) {
                byte[] raw = attest.quote().get().pcrSelect().raw();
                if (seen.add(Arrays.toString(raw))) {
                    write(selections.resolve("from-" + f.getFileName().toString().replace(".tpms_attest", "")), raw);
                }
            }
        }
    }

    /**
     * Logs as TestEventLog writes them (one SHA-256 bank), and the real boot's log (four banks, the
     * firmware's and systemd-stub's events) whole and cut after some of its events.
     */
    private static void eventLogs(Path dir, byte[] realBoot) throws IOException, TpmFormatException {
        write(dir.resolve("default"), TestEventLog.write(SoftwareTpmOptions.defaults().events()));
        write(dir.resolve("spec-id-only"), TestEventLog.write(List.of()));
        List<TestEvent> everyPcr = new ArrayList<>();
        for (int pcr = 0; pcr < 24; pcr++) {
            everyPcr.add(new TestEvent(pcr, TestEvent.EV_IPL, ("event in PCR " + pcr).getBytes(StandardCharsets.UTF_8)));
        }
        write(dir.resolve("every-pcr"), TestEventLog.write(everyPcr));
        write(dir.resolve("large-event"), TestEventLog.write(List.of(new TestEvent(11, TestEvent.EV_IPL, new byte[4096]))));
        write(dir.resolve("node-boot-shape"), TestEventLog.write(List.of(
                new TestEvent(4, EV_EFI_ACTION, "Calling EFI Application from Boot Option".getBytes(StandardCharsets.US_ASCII)),
                new TestEvent(4, EV_SEPARATOR, new byte[4]),
                new TestEvent(4, EV_EFI_BOOT_SERVICES_APPLICATION, new byte[64]),
                new TestEvent(9, EV_EVENT_TAG, "LOADED_IMAGE::LoadOptions".getBytes(StandardCharsets.UTF_16LE)),
                new TestEvent(11, TestEvent.EV_IPL, ".linux\0".getBytes(StandardCharsets.US_ASCII)))));
        write(dir.resolve("real-boot-mkosi-stub252"), realBoot);
        List<Integer> ends = eventEnds(realBoot);
        for (int events : List.of(1, 8, ends.size() / 2)) {
            write(dir.resolve("real-boot-first-" + events + "-events"), Arrays.copyOf(realBoot, ends.get(events - 1)));
        }
        write(dir.resolve("real-boot-cut-inside-last-event"), Arrays.copyOf(realBoot, ends.get(ends.size() - 2) + 10));
    }

    private static final long EV_SEPARATOR = 0x4L;
    private static final long EV_EVENT_TAG = 0x6L;
    private static final long EV_EFI_BOOT_SERVICES_APPLICATION = 0x80000003L;
    private static final long EV_EFI_ACTION = 0x80000007L;

    /** Where each event after the Spec ID header ends in a crypto-agile log (PFP §10.2.2). */
    private static List<Integer> eventEnds(byte[] log) throws TpmFormatException {
        RawEventLog parsed = new EventLogParser().parse(log);
        ByteBuffer b = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
        int at = 32 + b.getInt(28); // the Spec ID event: pcr, type, SHA-1 digest, size, event
        List<Integer> ends = new ArrayList<>();
        for (int i = 0; i < parsed.events().size(); i++) {
            int count = b.getInt(at + 8);
            at += 12;
            for (int d = 0; d < count; d++) {
                at += 2 + parsed.digestSizes().get(b.getShort(at) & 0xFFFF);
            }
            at += 4 + b.getInt(at);
            ends.add(at);
        }
        return ends;
    }

    /**
     * The software TPM's 24 PCRs as a set, and as a signed file carries it: with a version, with
     * warn-only entries, only the required PCRs. Sets from the real boot and from UKI predictions
     * come from measured-boot's seed generator.
     */
    private static void measurements(TestPki pki, Path dir) throws IOException {
        Measurements all = new SoftwareTpmAttester(pki, SoftwareTpmOptions.defaults()).measurements();
        write(dir.resolve("all-pcrs.json"), all.toJson());
        write(dir.resolve("all-pcrs-versioned.json"), MeasurementSet.of(1_700_000_000L, all, "20231114.221320").toJson());
        SortedMap<Integer, ExpectedValue> warn = new TreeMap<>(all.measurements());
        for (int pcr : List.of(0, 1, 2, 3, 5, 6, 7)) {
            warn.put(pcr, new ExpectedValue(all.measurements().get(pcr).expected(), true));
        }
        write(dir.resolve("firmware-pcrs-warn-only.json"), new Measurements(all.variant(), warn).toJson());
        SortedMap<Integer, ExpectedValue> required = new TreeMap<>();
        for (int pcr : List.of(4, 9, 11, 12, 13, 15)) {
            required.put(pcr, all.measurements().get(pcr));
        }
        write(dir.resolve("required-pcrs-only.json"), MeasurementSet.of(0, new Measurements(all.variant(), required), "1").toJson());
    }

    private static void write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
