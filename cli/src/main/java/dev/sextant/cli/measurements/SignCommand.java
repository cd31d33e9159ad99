package dev.sextant.cli.measurements;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.input.MeasurementsInput;
import dev.sextant.cli.input.PemKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "sign",
        description = {"Check that FILE is a valid measurements file and write its signature to FILE.sig.",
                "A cluster pins the key its first measurements were signed with and refuses sets signed by any other. "
                        + "To rotate the key, sign one set with the pinned key and --next-key NEW.pub: once a join "
                        + "service admits it, the cluster pins NEW, and only sets signed by NEW's private key are "
                        + "accepted (apply them with `sextant upgrade apply --measurements`)."},
        footer = {"  sextant measurements sign --file out/image/measurements.json --key \\",
                "      keys/measurements-key.pem",
                "  sextant measurements sign --file m.json --key keys/measurements-key.pem \\",
                "      --next-key keys/new/measurements-pub.pem"})
public final class SignCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--file", required = true, paramLabel = "FILE", description = "measurements JSON")
    Path file;

    @Option(names = "--key", required = true, paramLabel = "PEM", description = "private key PEM (Ed25519 or ECDSA P-256)")
    Path key;

    @Option(names = "--next-key", paramLabel = "PEM",
            description = "public key PEM of the key that signs the sets after this one: written into FILE as \"nextKey\" "
                    + "(FILE is rewritten in canonical form), then signed with --key. Signed by the cluster's pinned key, "
                    + "this set moves the pin to the next key; from then on sets signed with --key are refused")
    Path nextKey;

    @Override
    public Integer call() {
        MeasurementsInput.parse("--file", file);
        String privateKey = PemKeys.privateKey("--key", key, "pass the measurements-key.pem that `sextant measurements keygen` wrote");
        String next = nextKey == null ? null
                : PemKeys.publicKey("--next-key", nextKey, "pass the measurements-pub.pem that `sextant measurements keygen` wrote for the new key");
        try {
            if (next == null) {
                MeasurementsFile.sign(file, privateKey);
            } else {
                MeasurementsFile.signNamingNextKey(file, privateKey, next);
            }
        } catch (MeasurementsException e) {
            // The library's message never quotes the key.
            throw new CliFailure(next == null ? "--key " + key + ": cannot sign with it (" + e.getMessage() + ")"
                    : "--key " + key + " --next-key " + nextKey + ": cannot sign with them (" + e.getMessage() + ")", e);
        }
        spec.commandLine().getOut().println(MeasurementsFile.signatureFile(file));
        return ExitCodes.OK;
    }
}
