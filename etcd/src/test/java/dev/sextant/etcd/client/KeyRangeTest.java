package dev.sextant.etcd.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.sextant.etcd.pki.EtcdTlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Key ranges and endpoints as the client writes them")
class KeyRangeTest {
    @Test
    @DisplayName("the range of a prefix ends at the prefix with its last byte raised; trailing 0xff bytes are dropped first; all 0xff means to the end")
    void prefixEnd() {
        assertEquals(ByteString.copyFromUtf8("/sextant/v1/control-planes0"),
                EtcdClient.prefixEnd(ByteString.copyFromUtf8("/sextant/v1/control-planes/")));
        assertEquals(ByteString.copyFrom(new byte[]{'a', 'c'}), EtcdClient.prefixEnd(ByteString.copyFrom(new byte[]{'a', 'b', (byte) 0xff})));
        assertEquals(ByteString.copyFrom(new byte[]{0}), EtcdClient.prefixEnd(ByteString.copyFrom(new byte[]{(byte) 0xff, (byte) 0xff})));
    }

    @Test
    @DisplayName("an endpoint is host:port; a URL, a missing port or an empty list is refused, and so is a call timeout of zero")
    void endpoints() {
        EtcdTlsFiles tls = new EtcdTlsFiles(Path.of("ca"), Path.of("c"), Path.of("k"));
        assertEquals(2379, EtcdClientConfig.port("10.0.0.1:2379"));
        assertEquals("10.0.0.1", EtcdClientConfig.host("10.0.0.1:2379"));
        for (String bad : List.of("https://10.0.0.1:2379", "10.0.0.1", "10.0.0.1:0", ":2379")) {
            assertThrows(IllegalArgumentException.class, () -> new EtcdClientConfig(List.of(bad), tls), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new EtcdClientConfig(List.of(), tls));
        assertThrows(IllegalArgumentException.class, () -> new EtcdClientConfig(List.of("a:1"), tls, Duration.ZERO));
        assertEquals(List.of("10.0.0.1:2379"), new EtcdMember(1, "cp-0", List.of(), List.of("https://10.0.0.1:2379"), false).clientEndpoints());
    }

    @Test
    @DisplayName("a guard over an empty prefix (the whole store) or a negative revision is refused")
    void guards() {
        assertThrows(IllegalArgumentException.class, () -> new PrefixUnchangedSince("", 1));
        assertThrows(IllegalArgumentException.class, () -> new PrefixUnchangedSince("/a/", -1));
    }
}
