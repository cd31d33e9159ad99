package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * Marshals one command (TPM 2.0 Part 1, §18): header, handle area, then, when any handle needs
 * authorization, the authorization area (password sessions with the empty password, or a policy
 * session whose policy carries no PolicyAuthValue/PolicyPassword, so no HMAC), then the parameters.
 */
final class Command {
    static final int ST_NO_SESSIONS = 0x8001;
    static final int ST_SESSIONS = 0x8002;
    /** TPM_RS_PW: a password session, here always with the empty password (TPM 2.0 Part 2, §7.4 TPM_RH). */
    private static final int RS_PW = 0x40000009;

    private final TpmCc cc;
    private final TpmWriter handles = new TpmWriter();
    private final TpmWriter params = new TpmWriter();
    private final List<Integer> sessions = new ArrayList<>();
    private final List<byte[]> nonces = new ArrayList<>();

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
        sessions.add(RS_PW);
        nonces.add(new byte[0]);
        return handle(handle);
    }

    /**
     * A handle authorized by the policy session {@code session}: the TPM compares the session's
     * policy digest with the entity's authPolicy. continueSession is clear, so a successful command
     * flushes the session; the caller flushes it after a failure. {@code nonceCaller} is fresh and of
     * 16 to 32 bytes, as for any session that is not a password (Part 1, §19.6).
     */
    Command policyAuthorizedHandle(int handle, int session, byte[] nonceCaller) {
        sessions.add(session);
        nonces.add(nonceCaller.clone());
        return handle(handle);
    }

    TpmWriter params() { return params; }

    byte[] marshal() {
        TpmWriter body = new TpmWriter().bytes(handles.toByteArray());
        boolean authorized = !sessions.isEmpty();
        if (authorized) {
            // TPMS_AUTH_COMMAND (Part 2, §10.13.2): handle, nonce (empty for a password), attributes
            // (none), hmac = the empty password, or for a policy session without PolicyAuthValue no HMAC.
            TpmWriter auth = new TpmWriter();
            for (int i = 0; i < sessions.size(); i++) {
                auth.u32(sessions.get(i) & 0xFFFFFFFFL).sized(nonces.get(i)).u8(0).sized(new byte[0]);
            }
            body.u32(auth.size()).bytes(auth.toByteArray());
        }
        body.bytes(params.toByteArray());
        return new TpmWriter()
                .u16(authorized ? ST_SESSIONS : ST_NO_SESSIONS)
                .u32(10 + body.size())
                .u32(cc.code())
                .bytes(body.toByteArray())
                .toByteArray();
    }
}
