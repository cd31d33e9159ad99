package dev.sextant.grpcsupport.unix;

import com.sun.security.auth.module.UnixSystem;

/** The uid this process runs as: the owner a socket directory must have, and the uid its callers see. */
public final class ProcessUid {
    private ProcessUid() {
    }

    public static int current() {
        return Math.toIntExact(new UnixSystem().getUid());
    }
}
