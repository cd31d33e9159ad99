package dev.sextant.cli.attest;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.issue.AttestationException;
import dev.sextant.cli.input.Hex;
import dev.sextant.cli.tpm.TpmInputs;
import dev.sextant.tpm.attest.TpmAttester;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "quote",
        description = {"Quote all SHA-256 PCRs for a nonce and write the attestation document.",
                "The quote is made under the purpose \"sextant/verify/v1\", so it never passes as aTLS evidence."},
        footer = {"  sextant attest quote --tpm swtpm:127.0.0.1:2321 \\",
                "      --nonce 00112233 --out doc.bin"})
public final class QuoteCommand implements Callable<Integer> {
    @Option(names = "--tpm", required = true, paramLabel = "TPM", description = "swtpm:HOST:PORT or device:/dev/tpmrm0")
    String tpm;

    @Option(names = "--nonce", required = true, paramLabel = "HEX", converter = Hex.Converter.class, description = "verifier's nonce, hex")
    Hex nonce;

    @Option(names = "--user-data", paramLabel = "HEX", converter = Hex.Converter.class, description = "data to bind into the quote, hex")
    Hex userData = Hex.EMPTY;

    @Option(names = "--event-log", description = "TCG event log to include (default: ${DEFAULT-VALUE})")
    Path eventLog = TpmAttester.DEFAULT_EVENT_LOG;

    @Option(names = "--out", required = true, paramLabel = "DOC", description = "where to write the document (protobuf)")
    Path out;

    @Override
    public Integer call() throws Exception {
        try (TpmAttester attester = open()) {
            Files.write(out, attester.attest(Purpose.VERIFY, nonce.bytes(), userData.bytes()).toByteArray());
        }
        return 0;
    }

    private TpmAttester open() {
        try {
            return TpmAttester.open(tpm, eventLog);
        } catch (AttestationException e) {
            throw TpmInputs.unusable(tpm, e);
        }
    }
}
