package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmWriter;

/**
 * Marshals one command (TPM 2.0 Part 1, §18): header, handle area, then, when any handle needs
 * authorization, the authorization area of password sessions, then the parameters.
 */
final class Command {
    static final int ST_NO_SESSIONS = 0x8001;
    static final int ST_SESSIONS = 0x8002;
    /** TPM_RS_PW: a password session, here always with the empty password (TPM 2.0 Part 2, §7.4 TPM_RH). */
    private static final int RS_PW = 0x40000009;

    private final TpmCc cc;
    private final TpmWriter handles = new TpmWriter();
    private final TpmWriter params = new TpmWriter();
    private int authorizations;

    private Command(TpmCc cc) {
        this.cc = cc;
    }

    static Command of(TpmCc cc) { return new Command(cc); }

    TpmCc cc() { return cc; }

    /** A handle that needs no authorization (e.g. the key of TPM2_FlushContext is a parameter, not this). */
    Command handle(int handle) {
        handles.u32(handle & 0xFFFFFFFFL);
        return this;
    }

    /** A handle authorized by a password session with the empty password. */
    Command authorizedHandle(int handle) {
        authorizations++;
        return handle(handle);
    }

    TpmWriter params() { return params; }

    byte[] marshal() {
        TpmWriter body = new TpmWriter().bytes(handles.toByteArray());
        if (authorizations > 0) {
            // TPMS_AUTH_COMMAND (Part 2, §10.13.2): handle, nonce (empty), attributes, hmac = password.
            TpmWriter auth = new TpmWriter();
            for (int i = 0; i < authorizations; i++) {
                auth.u32(RS_PW).sized(new byte[0]).u8(0).sized(new byte[0]);
            }
            body.u32(auth.size()).bytes(auth.toByteArray());
        }
        body.bytes(params.toByteArray());
        return new TpmWriter()
                .u16(authorizations > 0 ? ST_SESSIONS : ST_NO_SESSIONS)
                .u32(10 + body.size())
                .u32(cc.code())
                .bytes(body.toByteArray())
                .toByteArray();
    }
}
