package dev.sextant.cli.measure;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.pe.Authenticode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.Callable;

/** {@code measure authenticode FILE.efi}: the Authenticode SHA-256, lowercase hex. */
@Command(name = "authenticode", mixinStandardHelpOptions = true,
        description = "Print the Authenticode SHA-256 of a PE/COFF file as lowercase hex.",
        footer = "  sextant measure authenticode BOOTX64.EFI")
public final class AuthenticodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.efi", description = "PE/COFF image")
    Path file;

    public AuthenticodeCommand() {
    }

    @Override
    public Integer call() {
        return Failures.run(spec, file, "a PE/COFF file (.efi)", () -> {
            try (FileSource src = FileSource.open(file)) {
                spec.commandLine().getOut().println(HexFormat.of().formatHex(Authenticode.sha256(src)));
            }
        });
    }
}
