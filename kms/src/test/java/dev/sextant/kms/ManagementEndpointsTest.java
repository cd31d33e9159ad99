package dev.sextant.kms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.KeyServiceGrpc.KeyServiceBlockingStub;
import io.grpc.StatusRuntimeException;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Management HTTP port: health and Prometheus metrics")
class ManagementEndpointsTest implements TestPropertyProvider {

    private final TestSecrets secrets = TestSecrets.golden();

    @Inject
    @Client("/")
    HttpClient http;

    @Inject
    KeyServiceBlockingStub keyService;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> properties = new HashMap<>(secrets.properties());
        properties.put("endpoints.health.details-visible", "ANONYMOUS");
        return properties;
    }

    @AfterAll
    void removeSecrets() {
        secrets.close();
    }

    @Test
    @DisplayName("/health answers 200 with status UP, and its details include the running gRPC server")
    void healthIsUp() {
        HttpResponse<String> response = http.toBlocking().exchange("/health", String.class);
        assertEquals(200, response.code());
        String body = response.body();
        assertTrue(body.startsWith("{\"name\":\"sextant-kms\",\"status\":\"UP\""), body);
        assertTrue(body.contains("\"grpc-server\":{\"name\":\"sextant-kms\",\"status\":\"UP\""), body);
    }

    @Test
    @DisplayName("/prometheus counts issued keys and refusals by reason")
    void countsIssuedAndRefused() {
        double issuedBefore = metric("sextant_kms_keys_issued_total");
        double emptyBefore = metric("sextant_kms_requests_refused_total{reason=\"empty_id\"}");
        keyService.getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("clusterID").setLength(32).build());
        keyService.getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("measurementSecret").setLength(32).build());
        assertThrows(StatusRuntimeException.class, () -> keyService.getDataKey(
                GetDataKeyRequest.newBuilder().setDataKeyId("").setLength(32).build()));
        assertEquals(issuedBefore + 2, metric("sextant_kms_keys_issued_total"));
        assertEquals(emptyBefore + 1, metric("sextant_kms_requests_refused_total{reason=\"empty_id\"}"));
        assertEquals(0, metric("sextant_kms_requests_refused_total{reason=\"bad_length\"}"));
    }

    private double metric(String series) {
        String body = http.toBlocking().retrieve("/prometheus");
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(body);
        assertTrue(m.find(), () -> series + " not found in:\n" + body);
        return Double.parseDouble(m.group(1));
    }
}
