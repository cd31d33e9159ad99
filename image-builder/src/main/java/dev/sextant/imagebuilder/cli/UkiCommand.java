package dev.sextant.imagebuilder.cli;

import dev.sextant.imagebuilder.io.FileSource;
import dev.sextant.imagebuilder.predict.PcrPredictor;
import dev.sextant.imagebuilder.predict.Prediction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code measure uki FILE.efi}: predicted PCR 4, 9 and 11 as {@code {"4":"<hex>",...}}. */
@Command(name = "uki", mixinStandardHelpOptions = true,
        description = "Predict PCR 4, 9 and 11 (SHA-256) of a UKI booted directly by OVMF.")
public final class UkiCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.efi", description = "unified kernel image")
    Path file;

    @Option(names = "--events", description = "also print the predicted events to stderr")
    boolean events;

    @Option(names = "--measurements", description = "print the measurements policy JSON (PCR 4, 9, 11, 12, 13, 15) instead")
    boolean measurements;

    public UkiCommand() {
    }

    @Override
    public Integer call() {
        return Failures.run(spec, file, () -> {
            try (FileSource src = FileSource.open(file)) {
                print(spec, new PcrPredictor().predict(src), events, measurements);
            }
        });
    }

    static void print(CommandSpec spec, Prediction p, boolean events, boolean measurements) {
        if (events) {
            spec.commandLine().getErr().println("systemd-stub " + p.stub().full());
            p.events().forEach(e -> spec.commandLine().getErr().println(e));
        }
        if (measurements) {
            spec.commandLine().getOut().println(new String(p.measurements().toJson(), StandardCharsets.UTF_8));
            return;
        }
        SortedMap<Integer, byte[]> shown = new TreeMap<>();
        for (int pcr : new int[] {4, 9, 11}) {
            shown.put(pcr, p.pcr(pcr));
        }
        spec.commandLine().getOut().println(PcrMapJson.write(shown));
    }
}
