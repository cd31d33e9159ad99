package dev.sextant.cli.failure;

/**
 * The exit codes the README documents, and their rows in every command's {@code --help}
 * (picocli's {@code exitCodeList}: "code:description").
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** The thing was checked and rejected (attestation, signature): the command did its job. */
    public static final int REJECTED = 1;
    /** A usage error, or a file or endpoint that could not be used. */
    public static final int FAILED = 2;

    public static final String DONE_ROW = " 0:done";
    public static final String VERIFIED_ROW = " 0:verified";
    public static final String REJECTED_ROW = " 1:REJECTED: <REASON>: <sentence> (on stdout)";
    public static final String FAILED_ROW = " 2:usage error, or a file or endpoint that cannot be used (stderr)";

    private ExitCodes() {}
}
