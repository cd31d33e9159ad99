package dev.sextant.nodeboot.endpointdiscovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.keys.member.MemberKey;
import dev.sextant.keys.member.MemberRole;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RecordVerifierTest {
    private static final String DOMAIN = "internal.demo";
    private static final EndpointRecord API = new EndpointRecord("api." + DOMAIN, "10.0.0.1", 6443);

    private final TestMembers cluster = TestMembers.random();
    private final Instant start = Instant.now();
    private Instant now = start;
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    @Test
    @DisplayName("a repeated announcement is judged again on what changes with time and sender: an expired certificate and another sender address are refused")
    void repeatsAreCheckedForTimeAndAddress() throws Exception {
        RecordCodec codec = new RecordCodec(DOMAIN);
        MemberCredentials cp = cluster.member(MemberKey.generate(new SecureRandom()), "cp-0", MemberRole.CONTROL_PLANE, start,
                Duration.ofHours(1));
        RecordVerifier verifier = new RecordVerifier(codec, DOMAIN, cluster.controlPlane("cp-1"), clock);
        byte[] announcement = new RecordSigner(codec, cp).encode(5, Set.of(API));
        InetAddress sender = InetAddress.getByName("10.0.0.1");

        RecordVerifier.Verified v = verifier.verify(announcement, Optional.of(sender));
        assertEquals("cp-0", v.nodeName());
        assertEquals(Set.of(API), v.records());
        assertEquals(v, verifier.verify(announcement, Optional.of(sender)), "the same bytes again");

        IllegalArgumentException moved = assertThrows(IllegalArgumentException.class,
                () -> verifier.verify(announcement, Optional.of(InetAddress.getByName("10.0.0.9"))));
        assertTrue(moved.getMessage().contains("come from 10.0.0.9"), moved.getMessage());

        now = start.plus(Duration.ofHours(2));
        IllegalArgumentException expired = assertThrows(IllegalArgumentException.class,
                () -> verifier.verify(announcement, Optional.of(sender)));
        assertTrue(expired.getMessage().contains("valid only from"), expired.getMessage());
    }
}
