package dev.sextant.cli.tpm;

import dev.sextant.tpmmanufacturer.swtpm.SwtpmManufacturer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "manufacture",
        description = "Create swtpm state in --dir/state whose EK certificate is signed by the CA in --ca.",
        footer = "  sextant tpm manufacture --ca ca --dir tpm0")
public final class ManufactureCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ca", required = true, paramLabel = "DIR", description = "directory of a CA made by 'sextant tpm ca'")
    Path caDir;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the swtpm state goes")
    Path dir;

    @Override
    public Integer call() throws Exception {
        SwtpmManufacturer.manufacture(dir, TpmInputs.ca(caDir));
        spec.commandLine().getOut().println(dir.resolve("state").toAbsolutePath());
        return 0;
    }
}
