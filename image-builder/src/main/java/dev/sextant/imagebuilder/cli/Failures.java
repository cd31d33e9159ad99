package dev.sextant.imagebuilder.cli;

import dev.sextant.imagebuilder.io.MalformedImageException;
import dev.sextant.imagebuilder.predict.UnpredictableUkiException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The error path of the measure commands, worded as the sextant CLI words every failure: one line on
 * stderr, {@code <full command name>: <file>: <what is wrong>: <what to pass>}, and exit code 2 (the
 * CLI's usage or input error). The exception itself is shown only with the CLI's {@code --debug}.
 */
final class Failures {
    static final int FAILED = 2;
    private static final String DEBUG_OPTION = "--debug";

    interface Body {
        void run() throws MalformedImageException, IOException, UnpredictableUkiException;
    }

    private Failures() {
    }

    /** @param expected what the input must be, e.g. "a unified kernel image (.efi)" */
    static int run(CommandSpec spec, Path input, String expected, Body body) {
        try {
            body.run();
            spec.commandLine().getOut().flush();
            return 0;
        } catch (MalformedImageException e) {
            return fail(spec, e, input + ": malformed (" + e.getMessage() + "): pass " + expected);
        } catch (UnpredictableUkiException e) {
            return fail(spec, e, input + ": its PCRs cannot be predicted (" + e.getMessage() + ")");
        } catch (NoSuchFileException e) {
            return fail(spec, e, input + ": no such file: pass " + expected);
        } catch (AccessDeniedException e) {
            return fail(spec, e, input + ": not readable (permission denied): make it readable by this user");
        } catch (FileSystemException e) {
            return fail(spec, e, input + ": cannot be read (" + e.getReason() + ")");
        } catch (IOException e) {
            return fail(spec, e, input + ": cannot be read (" + e.getMessage() + ")");
        }
    }

    private static int fail(CommandSpec spec, Exception cause, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + message);
        if (debugRequested(spec)) {
            cause.printStackTrace(err);
        }
        err.flush();
        return FAILED;
    }

    /** {@code --debug} is the sextant CLI's global option; standalone these commands have none. */
    private static boolean debugRequested(CommandSpec spec) {
        for (ParseResult level = spec.root().commandLine().getParseResult(); level != null; level = level.subcommand()) {
            if (level.hasMatchedOption(DEBUG_OPTION)) {
                return true;
            }
        }
        return false;
    }
}
