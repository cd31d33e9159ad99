package dev.sextant.joinapi.identity;

import java.util.Optional;

/**
 * The attested machine identity of the current gRPC caller: the TPM name of its attestation key
 * (AttestedState.akName()) and the image version its quote matched. Behind an interface so endpoint
 * tests can run over plain gRPC with an interceptor that sets it, while production reads what the aTLS
 * handshake verified.
 */
public interface CallerIdentity {
    /** The caller's AK name and image, or empty when the call did not come over an attested connection. */
    Optional<AttestedCaller> current();
}
