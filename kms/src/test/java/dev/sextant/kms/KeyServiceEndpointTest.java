package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.KeyServiceGrpc.KeyServiceBlockingStub;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
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

    private List<byte[]> keys(List<String> ids, int length) {
        return keyService.getDataKeys(GetDataKeysRequest.newBuilder().addAllDataKeyIds(ids).setLength(length).build())
                .getDataKeysList().stream().map(ByteString::toByteArray).toList();
    }

    @Test
    @DisplayName("GetDataKeys returns each id's key, in the order asked, the same as GetDataKey's")
    void batchReturnsEachKeyInOrder() {
        List<String> ids = List.of("measurementSecret", "6f8c2e1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "discoveryKey", "x");
        List<byte[]> batch = keys(ids, 32);
        assertEquals(ids.size(), batch.size());
        for (int i = 0; i < ids.size(); i++) {
            assertArrayEquals(key(ids.get(i), 32), batch.get(i), ids.get(i));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    @DisplayName("a GetDataKeys call with one bad id among good ones fails as a whole with INVALID_ARGUMENT, naming the id's place")
    void batchWithOneBadIdIsRefused(String row, String id, int length, KeyRefusal reason, String message) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> keys(List.of("measurementSecret", id), length));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals((reason == KeyRefusal.BAD_LENGTH ? "" : "data_key_ids[1]: ") + message,
                e.getStatus().getDescription());
    }

    @Test
    @DisplayName("a GetDataKeys call with no ids, or more than 8, fails with INVALID_ARGUMENT saying so")
    void batchSizeIsBounded() {
        StatusRuntimeException none = assertThrows(StatusRuntimeException.class, () -> keys(List.of(), 32));
        assertEquals(Status.Code.INVALID_ARGUMENT, none.getStatus().getCode());
        assertEquals("data_key_ids is empty", none.getStatus().getDescription());
        StatusRuntimeException many = assertThrows(StatusRuntimeException.class,
                () -> keys(Collections.nCopies(9, "x"), 32));
        assertEquals(Status.Code.INVALID_ARGUMENT, many.getStatus().getCode());
        assertEquals("data_key_ids has 9 ids; at most 8 are allowed in one call", many.getStatus().getDescription());
    }
}
