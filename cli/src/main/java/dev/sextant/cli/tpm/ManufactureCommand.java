package dev.sextant.cli.tpm;

import dev.sextant.tpm.swtpm.LocalCa;
import dev.sextant.tpm.swtpm.SwtpmManufacturer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "manufacture", mixinStandardHelpOptions = true,
        description = "Create swtpm state in --dir/state whose EK certificate is signed by the CA in --ca.")
public final class ManufactureCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ca", required = true, description = "directory of a CA made by 'sextant tpm ca'")
    Path caDir;

    @Option(names = "--dir", required = true)
    Path dir;

    @Override
    public Integer call() throws Exception {
        SwtpmManufacturer.manufacture(dir, LocalCa.load(caDir));
        spec.commandLine().getOut().println(dir.resolve("state").toAbsolutePath());
        return 0;
    }
}
