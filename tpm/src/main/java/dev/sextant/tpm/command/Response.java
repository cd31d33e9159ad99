package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;

/**
 * The success response of one command, split per TPM 2.0 Part 1 §18.9: handles, then (with
 * sessions) a parameterSize, the parameters and the authorization area we do not need.
 */
final class Response {
    private final int[] handles;
    private final TpmReader params;

    private Response(int[] handles, TpmReader params) {
        this.handles = handles;
        this.params = params;
    }

    /** Parses a response whose responseCode is 0 and which returns {@code handleCount} handles. */
    static Response parse(byte[] bytes, int handleCount, String command) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, command + " response");
        int tag = r.u16("tag");
        r.u32("responseSize");
        r.u32("responseCode");
        int[] handles = new int[handleCount];
        for (int i = 0; i < handleCount; i++) {
            handles[i] = (int) r.u32("handle" + i);
        }
        if (tag == Command.ST_SESSIONS) {
            long size = r.u32("parameterSize");
            if (size > r.remaining()) {
                throw r.fail("parameterSize", size + " exceeds the " + r.remaining() + " bytes left");
            }
            return new Response(handles, r.slice((int) size, "parameters"));
        }
        if (tag != Command.ST_NO_SESSIONS) {
            throw r.fail("tag", String.format("0x%04x is not a response tag", tag));
        }
        return new Response(handles, r);
    }

    /** The response code of any response, read before deciding how to parse the rest. */
    static int responseCode(byte[] bytes, String command) throws TpmFormatException {
        TpmReader r = new TpmReader(bytes, command + " response");
        r.u16("tag");
        long size = r.u32("responseSize");
        if (size != bytes.length) {
            throw r.fail("responseSize", "declares " + size + " bytes, got " + bytes.length);
        }
        return (int) r.u32("responseCode");
    }

    int handle(int i) { return handles[i]; }

    TpmReader params() { return params; }
}
