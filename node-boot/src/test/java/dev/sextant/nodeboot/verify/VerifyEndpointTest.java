package dev.sextant.nodeboot.verify;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Qualification;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import dev.sextant.atls.AtlsContexts;
import dev.sextant.atls.OwnAttestation;
import dev.sextant.atls.ServerVerification;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import dev.sextant.attestation.verify.VerifierPolicy;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerifyEndpointTest implements TestPropertyProvider {
    private Swtpm swtpm;

    @Inject
    GrpcEmbeddedServer server;

    private ManagedChannel channel;
    private DocumentVerifier verifier;
    private final AtomicReference<AttestedState> serverState = new AtomicReference<>();

    @Override
    public Map<String, String> getProperties() {
        Swtpm.assumeAvailable();
        try {
            swtpm = Swtpm.provisioned();
            swtpm.releaseClient(); // the node opens its own connection; swtpm serves one at a time
        } catch (Exception e) {
            throw new IllegalStateException("starting swtpm", e);
        }
        return Map.of("sextant.tpm.address", swtpm.tpmArg(), "sextant.tpm.event-log", "/nonexistent");
    }

    @BeforeAll
    void connectOverAtls() throws Exception {
        var zeroPcr15 = new Measurements(Variant.QEMU_VTPM,
                new TreeMap<>(Map.of(15, new ExpectedValue(new byte[32], false))));
        var verifier = new DocumentVerifier(new VerifierPolicy(zeroPcr15,
                AkTrust.ekCa(List.of(swtpm.ca().certificate()))));
        this.verifier = verifier;
        AttestationVerifier recording = (document, purpose, nonce, userData) -> {
            AttestedState state = verifier.verify(document, purpose, nonce, userData);
            serverState.set(state);
            return state;
        };
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(recording))).build();
    }

    @AfterAll
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("serves over server-attested TLS: the client verified the node's TPM quote in the handshake")
    void handshakeCarriesTheNodesQuote() {
        VerifyServiceGrpc.newBlockingStub(channel).getAttestation(
                GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(new byte[32])).build());
        AttestedState state = serverState.get();
        assertNotNull(state, "the handshake verified the server's attestation");
        assertArrayEquals(new byte[32], state.pcrs().get(15));
    }

    @Test
    @DisplayName("answers a 32-byte nonce with a document quoted under the verify purpose for that nonce alone")
    void quotesForTheCallersNonce() throws Exception {
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        var response = VerifyServiceGrpc.newBlockingStub(channel)
                .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
        var document = response.getAttestation();
        assertEquals("qemu-vtpm", document.getVariant());
        assertEquals(1, document.getQuotesCount());
        assertEquals(24, document.getQuotes(0).getPcrsCount());
        byte[] attest = document.getQuotes(0).getAttest().toByteArray();
        byte[] qualification = Qualification.of(Purpose.VERIFY, nonce, new byte[0]);
        assertTrue(indexOf(attest, qualification) >= 0, "TPMS_ATTEST carries the VERIFY qualification of the nonce");
        assertArrayEquals(new byte[0], document.getUserData().toByteArray());
        assertEquals(24, verifier.verify(document.toByteArray(), Purpose.VERIFY, nonce, new byte[0]).pcrs().size());
    }

    @Test
    @DisplayName("refuses a nonce that is not 32 bytes with INVALID_ARGUMENT saying so")
    void refusesShortNonce() {
        var stub = VerifyServiceGrpc.newBlockingStub(channel);
        var e = assertThrows(StatusRuntimeException.class, () -> stub.getAttestation(
                GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(new byte[5])).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("nonce must be 32 bytes, got 5", e.getStatus().getDescription());
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
