package dev.sextant.nodeboot.verify;

import com.google.protobuf.ByteString;
import dev.sextant.attestation.verify.Qualification;
import dev.sextant.proto.v1.GetAttestationRequest;
import dev.sextant.proto.v1.VerifyServiceGrpc;
import dev.sextant.tpm.testkit.Swtpm;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.security.SecureRandom;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerifyEndpointTest implements TestPropertyProvider {
    private Swtpm swtpm;

    @Inject
    @GrpcChannel(GrpcServerChannel.NAME)
    ManagedChannel channel;

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

    @AfterAll
    void stopTpm() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("answers a 32-byte nonce with a document whose quote is bound to that nonce")
    void quotesForTheCallersNonce() {
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        var response = VerifyServiceGrpc.newBlockingStub(channel)
                .getAttestation(GetAttestationRequest.newBuilder().setNonce(ByteString.copyFrom(nonce)).build());
        var document = response.getAttestation();
        assertEquals("qemu-vtpm", document.getVariant());
        assertEquals(1, document.getQuotesCount());
        assertEquals(24, document.getQuotes(0).getPcrsCount());
        byte[] attest = document.getQuotes(0).getAttest().toByteArray();
        byte[] qualification = Qualification.of(nonce, new byte[0]);
        assertTrue(indexOf(attest, qualification) >= 0, "TPMS_ATTEST carries SHA-256(nonce || user data)");
        assertArrayEquals(new byte[0], document.getUserData().toByteArray());
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

    @Test
    @DisplayName("refuses more than 64 bytes of user data with INVALID_ARGUMENT saying so")
    void refusesLongUserData() {
        var stub = VerifyServiceGrpc.newBlockingStub(channel);
        var e = assertThrows(StatusRuntimeException.class, () -> stub.getAttestation(GetAttestationRequest
                .newBuilder().setNonce(ByteString.copyFrom(new byte[32]))
                .setUserData(ByteString.copyFrom(new byte[65])).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("user_data must be at most 64 bytes, got 65", e.getStatus().getDescription());
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
