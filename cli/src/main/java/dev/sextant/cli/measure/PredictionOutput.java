package dev.sextant.cli.measure;

import dev.sextant.measuredboot.predict.Prediction;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.util.SortedMap;
import java.util.TreeMap;

/** How {@code measure uki} and {@code measure image} print a prediction: the same options, the same JSON. */
public final class PredictionOutput {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--events", description = "also print the predicted events to stderr")
    boolean events;

    @Option(names = "--measurements", description = "print the measurements policy JSON (PCR 4, 9, 11, 12, 13, 15) instead")
    boolean measurements;

    void print(Prediction p) {
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
