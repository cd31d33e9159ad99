package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.KeyServiceGrpc.KeyServiceBlockingStub;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("KeyService over gRPC (embedded server, real client)")
class KeyServiceEndpointTest implements TestPropertyProvider {

    private final TestSecrets secrets = TestSecrets.golden();

    @Inject
    KeyServiceBlockingStub keyService;

    @Override
    public Map<String, String> getProperties() {
        return secrets.properties();
    }

    @AfterAll
    void removeSecrets() {
        secrets.close();
    }

    private byte[] key(String id, int length) {
        return keyService.getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId(id).setLength(length).build())
                .getDataKey().toByteArray();
    }

    @Test
    @DisplayName("GetDataKey returns the HKDF key of the golden vector")
    void returnsGoldenKey() {
        assertEquals("7420076e98cec75bf0de6a6e8b35c9e6a4e6c8fc3772a036bbfb035a509bf4bf",
                HexFormat.of().formatHex(key("measurementSecret", 32)));
    }

    @Test
    @DisplayName("the same id gives the same key on every call")
    void sameIdSameKey() {
        assertArrayEquals(key("6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", 32),
                key("6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", 32));
    }

    @Test
    @DisplayName("different ids give different keys (ids differing only in case, too)")
    void differentIdsDifferentKeys() {
        assertFalse(Arrays.equals(key("measurementSecret", 32), key("clusterID", 32)));
        assertFalse(Arrays.equals(key("6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", 32),
                key("6F8C2E1A-3B4D-4E5F-8A9B-0C1D2E3F4A5B", 32)));
    }

    @Test
    @DisplayName("the key has exactly the requested length")
    void requestedLength() {
        assertEquals(1, key("x", 1).length);
        assertEquals(64, key("x", 64).length);
    }

    @Test
    @DisplayName("a request above the 64 KiB message cap is cut off by the transport with RESOURCE_EXHAUSTED")
    void oversizedMessageCutOff() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> key("a".repeat(1 << 20), 32));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode(), e.getStatus().toString());
    }

    static Stream<Arguments> badRequests() {
        return BadRequests.rows();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    @DisplayName("each bad request fails with INVALID_ARGUMENT and the message saying what is wrong")
    void badRequestIsInvalidArgument(String row, String id, int length, KeyRefusal reason, String message) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> key(id, length));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals(message, e.getStatus().getDescription());
    }
}
