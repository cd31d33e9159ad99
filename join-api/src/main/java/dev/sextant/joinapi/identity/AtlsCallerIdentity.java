package dev.sextant.joinapi.identity;

import dev.sextant.atls.PeerAttestation;
import jakarta.inject.Singleton;
import java.util.Optional;

/** Reads the state the aTLS trust manager verified, put into the gRPC Context by AtlsServerInterceptor. */
@Singleton
public class AtlsCallerIdentity implements CallerIdentity {
    @Override
    public Optional<AttestedCaller> current() {
        return PeerAttestation.current().map(state -> new AttestedCaller(state.akName(), state.imageVersion()));
    }
}
