package dev.sextant.cli.tpm;

import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "ca",
        description = "Create a local EK/AK CA (ca-key.pem, ca-cert.pem) in --dir, unless one is there.",
        footer = "  sextant tpm ca --dir ca")
public final class CaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the CA is (or goes)")
    Path dir;

    @Option(names = "--name", description = "CA common name (default: ${DEFAULT-VALUE})")
    String name = "Sextant local EK CA";

    @Override
    public Integer call() throws Exception {
        LocalCa ca = Files.exists(dir.resolve("ca-cert.pem")) ? TpmInputs.ca(dir) : LocalCa.create(dir, name);
        spec.commandLine().getOut().println(ca.certPem());
        return 0;
    }
}
