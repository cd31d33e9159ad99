package dev.sextant.atls;

import dev.sextant.attestation.testkit.SoftwareTpmAttester;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.Reason;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.handler.ssl.SslContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("aTLS carries a server's handshake proof to the client's check, inside the handshake")
class HandshakeProofTest {
    private static SoftwareTpmAttester serverNode;

    @BeforeAll
    static void makeNode() {
        serverNode = SoftwareEvidence.node("server");
    }

    @Test
    @DisplayName("the check sees the proof made over ITS client random and the SPKI digest of the certificate presented")
    void proofReachesTheCheckBoundToTheHandshake() throws Exception {
        SoftwareEvidence server = new SoftwareEvidence(serverNode);
        List<byte[]> made = Collections.synchronizedList(new ArrayList<>());
        HandshakeProver prover = (peerRandom, spkiHash) -> {
            byte[] proof = concat(peerRandom, spkiHash);
            made.add(proof);
            return proof;
        };
        List<byte[]> seen = Collections.synchronizedList(new ArrayList<>());
        HandshakeProofCheck check = (proof, ownRandom, spkiHash) -> {
            seen.add(proof.orElseThrow());
            if (!MessageDigest.isEqual(proof.get(), concat(ownRandom, spkiHash))) {
                throw new AttestationRejected(Reason.KEY_BINDING, "not this handshake's proof");
            }
        };
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(OwnAttestation.proving(server.attester, prover),
                ClientVerification.anonymous()), false)) {
            pair.call(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(server.verifier, check)));
        }
        assertEquals(1, seen.size());
        assertArrayEquals(made.get(0), seen.get(0));
    }

    @Test
    @DisplayName("a server without a proof, where the client demands one, is refused in the handshake")
    void missingProofFailsTheHandshake() throws Exception {
        SoftwareEvidence server = new SoftwareEvidence(serverNode);
        List<Optional<byte[]>> seen = Collections.synchronizedList(new ArrayList<>());
        HandshakeProofCheck demanding = (proof, ownRandom, spkiHash) -> {
            seen.add(proof);
            if (proof.isEmpty()) {
                throw new AttestationRejected(Reason.UNTRUSTED_AK, "no proof");
            }
        };
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(OwnAttestation.by(server.attester),
                ClientVerification.anonymous()), false)) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pair.callOnNewChannel(
                    AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(server.verifier, demanding))));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), "a handshake failure, not an RPC error");
            assertEquals(0, pair.service.invocations.get(), "the service method never runs");
        }
        assertTrue(seen.size() == 1 && seen.get(0).isEmpty(), "the check ran and saw no proof");
    }

    @Test
    @DisplayName("a server whose prover fails presents no certificate, so the handshake fails")
    void failingProverSendsNoCertificate() throws Exception {
        SoftwareEvidence server = new SoftwareEvidence(serverNode);
        HandshakeProver failing = (peerRandom, spkiHash) -> {
            throw new java.security.GeneralSecurityException("no role key here");
        };
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(OwnAttestation.proving(server.attester, failing),
                ClientVerification.anonymous()), false)) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> pair.callOnNewChannel(
                    AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(server.verifier))));
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
