package dev.sextant.cli.measure;

import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.predict.PcrPredictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code measure uki FILE.efi}: predicted PCR 4, 9 and 11 as {@code {"4":"<hex>",...}}. */
@Command(name = "uki", mixinStandardHelpOptions = true,
        description = "Predict PCR 4, 9 and 11 (SHA-256) of a UKI booted directly by OVMF.",
        footer = "  sextant measure uki --measurements out/image/sextant.efi")
public final class UkiCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.efi", description = "unified kernel image")
    Path file;

    @Mixin
    PredictionOutput output;

    public UkiCommand() {
    }

    @Override
    public Integer call() {
        return Failures.run(spec, file, "a unified kernel image (.efi)", () -> {
            try (FileSource src = FileSource.open(file)) {
                output.print(new PcrPredictor().predict(src));
            }
        });
    }
}
