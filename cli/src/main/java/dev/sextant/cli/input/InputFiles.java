package dev.sextant.cli.input;

import dev.sextant.cli.failure.CliFailure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a file a command was given, so that a missing, unreadable or wrong kind of file becomes one
 * sentence naming the option, the path and what to pass instead, rather than an exception's text.
 */
public final class InputFiles {
    private InputFiles() {}

    /**
     * @param source how the person gave the path: an option ("--doc") or a variable ("$SEXTANT_EK_CA")
     * @param remedy what to pass when the file is missing, e.g. "pass the document `sextant attest quote` wrote"
     */
    public static byte[] read(String source, Path file, String remedy) {
        if (Files.isDirectory(file)) {
            throw new CliFailure(source + " " + file + ": is a directory, not a file: " + remedy);
        }
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new CliFailure(source + " " + file + ": no such file: " + remedy, e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(source + " " + file + ": not readable (permission denied): make it readable by this user", e);
        } catch (FileSystemException e) {
            throw new CliFailure(source + " " + file + ": cannot be read (" + e.getReason() + ")", e);
        } catch (IOException e) {
            throw new CliFailure(source + " " + file + ": cannot be read (" + e.getMessage() + ")", e);
        }
    }

    public static String readString(String source, Path file, String remedy) {
        return new String(read(source, file, remedy), StandardCharsets.UTF_8);
    }
}
