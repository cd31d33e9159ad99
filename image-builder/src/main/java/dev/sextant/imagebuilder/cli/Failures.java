package dev.sextant.imagebuilder.cli;

import dev.sextant.imagebuilder.io.MalformedImageException;
import dev.sextant.imagebuilder.predict.UnpredictableUkiException;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.Path;

/** One place that turns the checked failures of a measure command into a one-line message and exit code 1. */
final class Failures {
    interface Body {
        void run() throws MalformedImageException, IOException, UnpredictableUkiException;
    }

    private Failures() {
    }

    static int run(CommandSpec spec, Path input, Body body) {
        try {
            body.run();
            spec.commandLine().getOut().flush();
            return 0;
        } catch (MalformedImageException e) {
            return fail(spec, "Malformed '" + input + "': " + e.getMessage());
        } catch (UnpredictableUkiException e) {
            return fail(spec, "Cannot predict PCRs of '" + input + "': " + e.getMessage());
        } catch (IOException e) {
            return fail(spec, "Failed to read '" + input + "': " + e);
        }
    }

    private static int fail(CommandSpec spec, String message) {
        spec.commandLine().getErr().println(message);
        spec.commandLine().getErr().flush();
        return 1;
    }
}
