package dev.sextant.cli.attest;

import dev.sextant.cli.Hex;
import dev.sextant.tpm.attest.TpmAttester;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "quote", mixinStandardHelpOptions = true,
        description = "Quote all SHA-256 PCRs for a nonce and write the attestation document.")
public final class QuoteCommand implements Callable<Integer> {
    @Option(names = "--tpm", required = true, description = "swtpm:HOST:PORT or device:/dev/tpmrm0")
    String tpm;

    @Option(names = "--nonce", required = true, converter = Hex.Converter.class, description = "verifier's nonce, hex")
    Hex nonce;

    @Option(names = "--user-data", converter = Hex.Converter.class, description = "data to bind into the quote, hex")
    Hex userData = Hex.EMPTY;

    @Option(names = "--event-log", description = "TCG event log to include (default: ${DEFAULT-VALUE})")
    Path eventLog = TpmAttester.DEFAULT_EVENT_LOG;

    @Option(names = "--out", required = true, description = "where to write the document (protobuf)")
    Path out;

    @Override
    public Integer call() throws Exception {
        try (TpmAttester attester = TpmAttester.open(tpm, eventLog)) {
            Files.write(out, attester.attest(nonce.bytes(), userData.bytes()).toByteArray());
        }
        return 0;
    }
}
