package dev.sextant.tpm.command;

/**
 * A TPM command failed: the TPM answered with an error code, the transport broke, or the response
 * did not parse. {@link #responseCode()} is the TPM_RC, or 0 when the TPM never answered one.
 */
public final class TpmException extends Exception {
    private final TpmCc command;
    private final int responseCode;

    public TpmException(TpmCc command, int responseCode) {
        super(command.specName() + " failed: " + TpmRc.describe(responseCode));
        this.command = command;
        this.responseCode = responseCode;
    }

    public TpmException(TpmCc command, String problem, Throwable cause) {
        super(command.specName() + " failed: " + problem, cause);
        this.command = command;
        this.responseCode = 0;
    }

    public TpmCc command() { return command; }

    public int responseCode() { return responseCode; }

    /** True when the code, stripped of handle/session/parameter numbers, is {@code baseRc}. */
    public boolean is(int baseRc) {
        return responseCode != 0 && TpmRc.base(responseCode) == baseRc;
    }
}
