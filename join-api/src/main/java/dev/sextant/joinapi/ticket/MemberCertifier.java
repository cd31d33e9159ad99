package dev.sextant.joinapi.ticket;

import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberRole;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * Certifies a joining member's discovery key: {key, node name, role, cluster ID, validity} signed by
 * the discovery CA. The node keeps key and certificate on its encrypted state disk and uses them on
 * every later boot (a rejoin, or a recovery the operator drives without any join service), so the
 * validity spans the node's expected life rather than one boot.
 */
@Singleton
public class MemberCertifier {
    private final Clock clock;
    private final Duration validity;

    public MemberCertifier(Clock clock, JoinServiceConfig config) {
        this.clock = clock;
        this.validity = config.memberCertificateValidity();
    }

    public byte[] certify(byte[] caSeed, byte[] publicKey, String nodeName, boolean controlPlane, byte[] clusterId) {
        return new DiscoveryCa(caSeed).certifyMember(publicKey, nodeName,
                controlPlane ? MemberRole.CONTROL_PLANE : MemberRole.WORKER, clusterId, clock.instant(), validity);
    }

    public byte[] caPublicKey(byte[] caSeed) {
        return new DiscoveryCa(caSeed).publicKey();
    }
}
