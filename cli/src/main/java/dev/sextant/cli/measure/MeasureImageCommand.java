package dev.sextant.cli.measure;

import dev.sextant.measuredboot.predict.PcrPredictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code measure image IMAGE.raw}: the same JSON as {@code measure uki}, for the UKI on the image's ESP. */
@Command(name = "image", mixinStandardHelpOptions = true,
        description = "Predict PCR 4, 9 and 11 of the UKI at \\EFI\\BOOT\\BOOTX64.EFI in a raw GPT disk image.",
        footer = "  sextant measure image out/image/sextant.raw")
public final class MeasureImageCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "IMAGE.raw", description = "raw disk image (GPT, FAT ESP)")
    Path image;

    @Mixin
    PredictionOutput output;

    public MeasureImageCommand() {
    }

    @Override
    public Integer call() {
        return Failures.run(spec, image, "a raw GPT disk image with a FAT ESP", () -> output.print(new PcrPredictor().predictImage(image)));
    }
}
