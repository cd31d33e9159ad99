package dev.sextant.kms.attacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sextant.kms.TestSecrets;
import dev.sextant.proto.v1.GetDataKeyRequest;
import dev.sextant.proto.v1.GetDataKeysRequest;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The KMS misconfigured to listen on every address (as if the NetworkPolicy and the loopback bind
 * were both lost): a caller reaching it over a non-loopback address still gets no key. Whether a
 * key was derived is read from the KMS's own count of issued keys, which the endpoint advances for
 * every key it derives: a refusal sent after a derivation would leave the count raised.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Attacks on the KMS")
class KmsAttacksTest implements TestPropertyProvider {
    private final TestSecrets secrets = TestSecrets.golden();
    private final int port = freePort();

    @Inject
    MeterRegistry registry;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>(secrets.properties());
        p.put("grpc.server.host", "0.0.0.0");
        p.put("grpc.server.port", Integer.toString(port));
        return p;
    }

    @AfterAll
    void removeSecrets() {
        secrets.close();
    }

    @Test
    @DisplayName("a call to the KMS by anything but the join service on loopback (another pod, another host), "
            + "for one key or several: PERMISSION_DENIED, no key derived")
    void remoteCallerIsRefused() throws Exception {
        Optional<InetAddress> external = nonLoopbackAddress();
        assumeTrue(external.isPresent(), "this host has no non-loopback IPv4 address to call from");

        double issued = keysIssued();
        double refused = refusedNotOnLoopback();

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> dataKey(new InetSocketAddress(external.get(), port)));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("loopback only"), e.getStatus().getDescription());
        StatusRuntimeException batch = assertThrows(StatusRuntimeException.class,
                () -> dataKeys(new InetSocketAddress(external.get(), port)));
        assertEquals(Status.Code.PERMISSION_DENIED, batch.getStatus().getCode());
        assertTrue(batch.getStatus().getDescription().contains("loopback only"), batch.getStatus().getDescription());
        assertEquals(issued, keysIssued(), "no key derived for the refused calls");
        assertEquals(refused + 2, refusedNotOnLoopback(), "both calls refused as not on loopback");
        // The join service beside it still gets its keys, and the count sees each one derived.
        assertEquals(32, dataKey(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).length);
        assertEquals(issued + 1, keysIssued());
    }

    private double keysIssued() {
        return registry.get("sextant.kms.keys.issued").counter().count();
    }

    private double refusedNotOnLoopback() {
        return registry.get("sextant.kms.requests.refused").tag("reason", "not_loopback").counter().count();
    }

    private static byte[] dataKey(InetSocketAddress address) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress(address).usePlaintext().build();
        try {
            return KeyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getDataKey(GetDataKeyRequest.newBuilder().setDataKeyId("measurementSecret").setLength(32).build())
                    .getDataKey().toByteArray();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static void dataKeys(InetSocketAddress address) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress(address).usePlaintext().build();
        try {
            KeyServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS).getDataKeys(
                    GetDataKeysRequest.newBuilder().addDataKeyIds("measurementSecret").setLength(32).build());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
        return NetworkInterface.networkInterfaces().filter(KmsAttacksTest::up)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .findFirst();
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp() && !i.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
