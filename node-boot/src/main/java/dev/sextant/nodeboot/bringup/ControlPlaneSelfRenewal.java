package dev.sextant.nodeboot.bringup;

import dev.sextant.keys.KeyDerivation;
import dev.sextant.keys.member.CertificateRenewal;
import dev.sextant.keys.member.DiscoveryCa;
import dev.sextant.keys.member.MemberCredentials;
import dev.sextant.nodeboot.deploy.NodeLocalSettings;
import dev.sextant.serviceconfig.JoinServiceConfig;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A control plane renews its own member certificate at boot (docs/re-attestation.md, "A control plane
 * renews itself"). Certificates live an hour and only the re-attestation holder renews them, which needs
 * etcd; where control planes find each other's etcd members through discovery's names, a cluster that was
 * down for longer than that would never come back: every record refused, no name resolved, no quorum, no
 * holder. A control plane keeps the master secret on its encrypted state disk (written with its services,
 * {@code <services dir>/kms/mastersecret}), so it derives the discovery CA itself and issues its own
 * certificate anew: same key, name, role and cluster, valid from now for the join service's
 * {@code member-certificate-validity}. Only after a rejoin or a recovery (each attested this machine this
 * boot, and the disk it opened is this machine's) and before discovery announces. The certificate is
 * taken through {@link CertificateRenewal#renewSelf}, the rule a holder's renewal passes. A node without
 * the master secret (a worker; a control plane of a Kubernetes cluster whose KMS runs elsewhere) keeps the
 * certificate it had and waits for the holder's round.
 */
@Singleton
public final class ControlPlaneSelfRenewal {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneSelfRenewal.class);

    private final Path dir;
    private final Clock clock;

    @Inject
    public ControlPlaneSelfRenewal(NodeLocalSettings settings) {
        this(settings.dir(), Clock.systemUTC());
    }

    /** @param dir where the services' files are ({@link NodeLocalSettings#dir()}) */
    ControlPlaneSelfRenewal(Path dir, Clock clock) {
        this.dir = dir;
        this.clock = clock;
    }

    /** The credentials discovery starts with for {@code m}: renewed here when it may and can, else as they were. */
    public MemberCredentials credentialsFor(Membership m) {
        MemberCredentials current = m.member();
        if (current == null || !m.controlPlane() || m.via().firstMembership()) {
            // Init and join were certified this boot already; a worker holds no CA.
            return current;
        }
        Path secretFile = dir.resolve("kms/mastersecret");
        Path saltFile = dir.resolve("kms/salt");
        if (!Files.isRegularFile(secretFile) || !Files.isRegularFile(saltFile)) {
            LOG.info("Member certificate: no master secret under {}; kept until the re-attestation holder renews it", dir);
            return current;
        }
        byte[] secret = new byte[0];
        byte[] salt = new byte[0];
        byte[] seed = new byte[0];
        try {
            secret = Files.readAllBytes(secretFile);
            salt = Files.readAllBytes(saltFile);
            seed = new KeyDerivation(secret, salt).dataKey(KeyDerivation.DISCOVERY_CA, KeyDerivation.KEY_BYTES);
            DiscoveryCa ca = new DiscoveryCa(seed);
            Duration validity = validity();
            MemberCredentials renewed = CertificateRenewal.renewSelf(current, ca, clock.instant(), validity);
            LOG.info("Member certificate of {} renewed by this control plane from the master secret, for {}", m.nodeName(),
                    validity);
            return renewed;
        } catch (CertificateRenewal.Refused refused) {
            // The master secret's CA is not the one this node received at join: a disk or secret of another cluster.
            LOG.warn("Member certificate not renewed by this control plane: {}", refused.getMessage());
            return current;
        } catch (IOException | RuntimeException e) {
            // The messages name files and reasons, never bytes: the secret and seed stay out of the log.
            LOG.warn("Member certificate not renewed by this control plane (the master secret under {}: {})", dir, e.toString());
            return current;
        } finally {
            Arrays.fill(secret, (byte) 0);
            Arrays.fill(salt, (byte) 0);
            Arrays.fill(seed, (byte) 0);
        }
    }

    /** What this control plane's join service certifies for (its join.properties), else the default. */
    private Duration validity() {
        Path file = dir.resolve("join.properties");
        if (Files.isRegularFile(file)) {
            Properties properties = new Properties();
            try (Reader in = Files.newBufferedReader(file)) {
                properties.load(in);
                String value = properties.getProperty(JoinServiceConfig.MEMBER_CERTIFICATE_VALIDITY);
                if (value != null && !value.isBlank()) {
                    return JoinServiceConfig.from(java.util.Map.of(JoinServiceConfig.MEMBER_CERTIFICATE_VALIDITY, value.trim()))
                            .memberCertificateValidity();
                }
                } catch (IOException | IllegalArgumentException e) {
                LOG.warn("Member certificate: cannot read {} from {} ({}); the default validity", JoinServiceConfig.MEMBER_CERTIFICATE_VALIDITY,
                        file, e.getMessage());
            }
        }
        return JoinServiceConfig.defaults().memberCertificateValidity();
    }
}
