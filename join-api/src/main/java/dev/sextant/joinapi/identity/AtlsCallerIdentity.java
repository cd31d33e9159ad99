package dev.sextant.joinapi.identity;

import dev.sextant.atls.PeerAttestation;
import dev.sextant.attestation.verify.AttestedState;
import jakarta.inject.Singleton;
import java.util.Optional;

/** Reads the state the aTLS trust manager verified, put into the gRPC Context by AtlsServerInterceptor. */
@Singleton
public class AtlsCallerIdentity implements CallerIdentity {
    @Override
    public Optional<byte[]> current() {
        return PeerAttestation.current().map(AttestedState::akName);
    }
}
