package dev.sextant.cli.failure;

import io.grpc.StatusRuntimeException;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Turns an exception escaping a command into one line on stderr, {@code <full command name>: <what
 * is wrong>}, and exit code 2 (1 is reserved for "checked and rejected"). Commands word their own
 * failures as {@link CliFailure}s; anything else is worded here as well as its type allows. The
 * exception's class and stack trace, and its causes, are printed only with {@code --debug}.
 */
public final class ExecutionErrorHandler implements CommandLine.IExecutionExceptionHandler {
    public static final String DEBUG_OPTION = "--debug";

    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
        cmd.getOut().flush();
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + describe(e));
        if (debugRequested(parsed)) {
            e.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.FAILED;
    }

    static String describe(Throwable e) {
        if (e instanceof CliFailure) {
            return e.getMessage();
        }
        if (e instanceof NoSuchFileException f) {
            return f.getFile() + ": no such file or directory";
        }
        if (e instanceof AccessDeniedException f) {
            return f.getFile() + ": permission denied: make it accessible to this user";
        }
        if (e instanceof FileAlreadyExistsException f) {
            return f.getFile() + ": already exists: move it away or choose another path";
        }
        if (e instanceof NotDirectoryException f) {
            return f.getFile() + ": not a directory";
        }
        if (e instanceof FileSystemException f) {
            return f.getFile() + ": " + (f.getReason() == null ? "cannot be used" : f.getReason());
        }
        if (e instanceof StatusRuntimeException s) {
            return "the remote end " + GrpcStatusWords.describe(s.getStatus());
        }
        String message = e.getMessage();
        return message == null || message.isBlank()
                ? "failed unexpectedly; run it again with " + DEBUG_OPTION + " to see why" : message;
    }

    private static boolean debugRequested(ParseResult parsed) {
        for (ParseResult level = parsed; level != null; level = level.subcommand()) {
            if (level.hasMatchedOption(DEBUG_OPTION)) {
                return true;
            }
        }
        return false;
    }
}
