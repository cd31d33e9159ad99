package dev.sextant.cli.recover;

import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.failure.ExitCodes;
import dev.sextant.cli.failure.Rejections;
import dev.sextant.operatorfiles.MasterSecretFile;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.cli.input.VerifierOptions;
import dev.sextant.operatorfiles.ClusterRecordFile;
import dev.sextant.cli.remote.NodeEndpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "recover",
        description = {"Unlock a rebooted control plane whose state disk waits for its key: verify the node over "
                + "attested TLS first (a node that does not verify is sent nothing; its PCR 15 must be zero, not yet locked in "
                + "this boot, whatever the measurements file says there), ask whether its disk waits, and "
                + "send only that disk's key, and only to the machine (AK) the cluster record names for that disk, derived here from the master secret (the master secret never leaves "
                + "this machine). Retries until the node answers, up to --timeout."},
        footer = {"  sextant recover --endpoint 192.0.2.10:7444 \\",
                "      --master-secret sextant-mastersecret.json \\",
                "      --measurements out/image/measurements.json --ek-ca ca/ca-cert.pem"},
        exitCodeList = {" 0:the node reports its state disk open",
                " 1:REJECTED: <REASON>: <sentence>, or the node refused the key, or its disk does not wait for one",
                ExitCodes.FAILED_ROW})
public final class RecoverCommand implements Callable<Integer> {
    /** One call (Status, Recover) may take this long; opening a LUKS2 disk under TCG takes seconds. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT", converter = NodeEndpoint.Converter.class,
            description = "the node's recovery port (7444 on the node)")
    NodeEndpoint endpoint;

    @Option(names = "--master-secret", required = true, paramLabel = "FILE",
            description = "the cluster's master secret, as 'sextant init' wrote it")
    Path masterSecret;

    @Mixin
    VerifierOptions verifierOptions;

    @Option(names = "--cluster-record", paramLabel = "FILE",
            description = "the machines 'sextant init' recorded: the disk's key goes only to the AK recorded for it (default: ${DEFAULT-VALUE})")
    Path clusterRecord = Path.of(ClusterRecordFile.DEFAULT_NAME);

    @Option(names = KeyRecipients.INSECURE_OPTION,
            description = "INSECURE: send the key to any machine that verifies, whichever AK it has (a host may have attached"
                    + " the disk to a machine of its choice); warns on every use")
    boolean insecureAnyMachine;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "how long to keep trying while the node does not answer (default: ${DEFAULT-VALUE})")
    long timeoutSeconds = 600;

    @Override
    public Integer call() throws Exception {
        // Every input is checked before anything connects.
        AttestationVerifier verifier = verifierOptions.verifierOfUnlockedNode();
        DiskKeys keys = new DiskKeys(MasterSecretFile.parse(InputFiles.readString("--master-secret", masterSecret,
                "pass the master secret file 'sextant init' wrote"), masterSecret));
        PrintWriter out = spec.commandLine().getOut();
        KeyRecipients recipients = recipients(spec.commandLine().getErr());
        RecoveryAttempt attempt = new RecoveryAttempt(endpoint, verifier, keys, recipients, CALL_TIMEOUT, line -> {
            out.println(line);
            out.flush();
        });
        RecoveryOutcome outcome = new Retry(Duration.ofSeconds(timeoutSeconds), out).until(endpoint, attempt);
        return report(outcome, out);
    }

    private KeyRecipients recipients(PrintWriter err) throws IOException {
        if (insecureAnyMachine) {
            return KeyRecipients.anyVerifiedMachine(warning -> {
                err.println(warning);
                err.flush();
            });
        }
        if (!Files.exists(clusterRecord)) {
            throw new CliFailure("no cluster record at " + clusterRecord + ": pass --cluster-record FILE (written by"
                    + " 'sextant init'), or " + KeyRecipients.INSECURE_OPTION + " to send the key to any machine that verifies");
        }
        return KeyRecipients.recorded(ClusterRecordFile.read(clusterRecord));
    }

    private int report(RecoveryOutcome outcome, PrintWriter out) {
        if (outcome instanceof RecoveryOutcome.Opened opened) {
            out.println("state disk " + opened.diskUuid() + " is open; the cluster's state on it dates from " + opened.since());
            return ExitCodes.OK;
        }
        if (outcome instanceof RecoveryOutcome.Rejected rejected) {
            out.println(Rejections.line(rejected.rejection()));
        } else if (outcome instanceof RecoveryOutcome.NotWaiting notWaiting) {
            out.println("the node's state disk " + notWaiting.diskUuid() + " does not wait for a key (open already,"
                    + " or never initialized): nothing sent");
        } else if (outcome instanceof RecoveryOutcome.Refused refused) {
            out.println("recovery refused: " + refused.why());
        } else {
            throw new CliFailure("gave up after " + timeoutSeconds + " s: " + ((RecoveryOutcome.Unreachable) outcome).why());
        }
        return ExitCodes.REJECTED;
    }

    /** Tries again, with growing pauses, while the node is unreachable (it may still be booting). */
    static final class Retry {
        private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
        private static final Duration LONGEST_PAUSE = Duration.ofSeconds(15);

        private final Duration timeout;
        private final PrintWriter out;

        Retry(Duration timeout, PrintWriter out) {
            this.timeout = timeout;
            this.out = out;
        }

        RecoveryOutcome until(NodeEndpoint endpoint, RecoveryAttempt attempt) throws Exception {
            Instant start = Instant.now();
            Instant deadline = start.plus(timeout);
            Duration pause = FIRST_PAUSE;
            String lastWhy = "";
            while (true) {
                RecoveryOutcome outcome = attempt.run();
                if (!(outcome instanceof RecoveryOutcome.Unreachable unreachable)) {
                    return outcome;
                }
                if (!Instant.now().plus(pause).isBefore(deadline)) {
                    return outcome;
                }
                if (!unreachable.why().equals(lastWhy)) {
                    out.println("waiting for " + endpoint + " (" + Duration.between(start, Instant.now()).toSeconds()
                            + " s): " + unreachable.why());
                    out.flush();
                    lastWhy = unreachable.why();
                }
                Thread.sleep(pause.toMillis());
                pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            }
        }
    }
}
