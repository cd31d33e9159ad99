package dev.sextant.cli.measure;

import dev.sextant.cli.failure.CliFailure;
import dev.sextant.measuredboot.io.MalformedImageException;
import dev.sextant.measuredboot.predict.UnpredictableUkiException;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The words of the measure commands' failures: what is wrong with the input file and what to pass.
 * They are thrown as {@link CliFailure}s, so the CLI's {@code ExecutionErrorHandler} prints them as every
 * failure ({@code <full command name>: <file>: <what is wrong>: <what to pass>}, exit code 2, the
 * exception only with {@code --debug}).
 */
final class Failures {
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
            throw new CliFailure(input + ": malformed (" + e.getMessage() + "): pass " + expected, e);
        } catch (UnpredictableUkiException e) {
            throw new CliFailure(input + ": its PCRs cannot be predicted (" + e.getMessage() + ")", e);
        } catch (NoSuchFileException e) {
            throw new CliFailure(input + ": no such file: pass " + expected, e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(input + ": not readable (permission denied): make it readable by this user", e);
        } catch (FileSystemException e) {
            throw new CliFailure(input + ": cannot be read (" + e.getReason() + ")", e);
        } catch (IOException e) {
            throw new CliFailure(input + ": cannot be read (" + e.getMessage() + ")", e);
        }
    }
}
