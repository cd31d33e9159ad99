package dev.sextant.nodeboot.nodetpm;

import java.io.IOException;

/** The hex TPM name of this node's attestation key: what the join service binds the init node's disks and name to. */
@FunctionalInterface
public interface AkName {
    String hex() throws IOException;
}
