package dev.sextant.housekeeping.discovery;

import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.MemberCertificate;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.diskcrypt.SecretFiles;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node in the discovery group across the bootstrapper's exit: the process that
 * bootstrapped leaves (so no process keeps the master secret or the ticket), and the one systemd
 * starts next, finding the node locked, rejoins with the group key and member credentials
 * remembered here (0600 on tmpfs, gone at reboot like every other secret of this boot).
 */
@Singleton
public final class DiscoveryResume {
    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryResume.class);

    private final EndpointDiscovery discovery;
    private final Path file;

    /** Without discovery: nothing is remembered or rejoined. */
    public static DiscoveryResume disabled() {
        return new DiscoveryResume(EndpointDiscovery.disabled(), Path.of("/nonexistent/sextant-discovery.key"));
    }

    public DiscoveryResume(EndpointDiscovery discovery,
                           @Value("${sextant.discovery.gossip.resume-file:/run/sextant/discovery.key}") Path file) {
        this.discovery = discovery;
        this.file = file;
    }

    /** Joins now and remembers how, for the next bootstrapper process of this boot. */
    public void start(byte[] groupKey, String nodeName, boolean controlPlane, MemberCredentials member) {
        if (!discovery.enabled()) {
            discovery.start(groupKey, nodeName, controlPlane, member);
            return;
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Base64.Encoder b64 = Base64.getEncoder();
            String line = HexFormat.of().formatHex(groupKey) + " " + nodeName + " " + controlPlane
                    + (member == null ? "" : " " + b64.encodeToString(member.privateKey()) + " "
                    + b64.encodeToString(member.certificate()) + " " + b64.encodeToString(member.caPublicKey()));
            SecretFiles.write(file, line.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            LOG.warn("Discovery: cannot remember the group key in {} ({}); the node leaves the group when the"
                    + " bootstrapper exits", file, e.getMessage());
        }
        discovery.start(groupKey, nodeName, controlPlane, member);
    }

    /** This node's member certificate as discovery signs with it now; empty while discovery is not running. */
    public Optional<byte[]> memberCertificate() {
        return discovery.memberCertificate();
    }

    /**
     * Renews this node's member certificate in discovery (refused as {@link CertificateRenewal} says), and
     * remembers the renewed one for the next process of this boot, which would otherwise resume with the
     * older certificate. The state disk keeps the one of the join: after a reboot the node waits for the
     * next round, at most a period after its rejoin.
     */
    public MemberCertificate renewCertificate(byte[] offered) throws CertificateRenewal.Refused {
        MemberCertificate renewed;
        synchronized (this) {
            renewed = discovery.renewCertificate(offered);
            rememberCertificate(offered);
        }
        return renewed;
    }

    private void rememberCertificate(byte[] certificate) {
        if (!Files.exists(file)) {
            return;
        }
        try {
            String[] parts = Files.readString(file, StandardCharsets.US_ASCII).strip().split(" ");
            if (parts.length < 6) {
                return;
            }
            parts[4] = Base64.getEncoder().encodeToString(certificate);
            // A new 0600 file moved over the old one: a reader sees the old line or the new one, never half of it.
            Path next = file.resolveSibling(file.getFileName() + ".next");
            Files.deleteIfExists(next);
            SecretFiles.write(next, String.join(" ", parts).getBytes(StandardCharsets.US_ASCII));
            Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("Discovery: cannot remember the renewed member certificate in {} ({}); a restart of this process"
                    + " resumes with the older one until the next round", file, e.getMessage());
        }
    }

    @EventListener
    void onStartup(StartupEvent event) {
        if (!discovery.enabled() || !Files.exists(file)) {
            return;
        }
        try {
            String[] parts = Files.readString(file, StandardCharsets.US_ASCII).strip().split(" ");
            byte[] key = HexFormat.of().parseHex(parts[0]);
            LOG.info("Discovery: rejoining the group as {} (bootstrapped earlier in this boot)", parts[1]);
            Base64.Decoder b64 = Base64.getDecoder();
            MemberCredentials member = parts.length < 6 ? null
                    : new MemberCredentials(b64.decode(parts[3]), b64.decode(parts[4]), b64.decode(parts[5]));
            discovery.start(key, parts[1], Boolean.parseBoolean(parts[2]), member);
            Arrays.fill(key, (byte) 0);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Discovery: {} is unusable ({}); not rejoining", file, e.getMessage());
        }
    }
}
