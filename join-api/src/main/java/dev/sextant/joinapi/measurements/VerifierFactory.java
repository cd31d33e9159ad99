package dev.sextant.joinapi.measurements;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.verify.AkTrust;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Builds the reloading verifier and its watcher from configuration. AK trust is the EK CA bundle;
 * trusting any AK needs {@code sextant.join.insecure-trust-any-ak=true}, and the verifier then logs
 * a WARN on every verification.
 */
@Factory
class VerifierFactory {

    @Singleton
    ReloadingVerifier verifier(JoinServiceConfig config, MeasurementsWatcherHolder holder, Ecdsa ecdsa) {
        Path file = config.measurements().file();
        Path publicKey = config.measurements().publicKeyFile();
        try {
            AkTrust trust = akTrust(config.ekCaFile().map(Path::toString), config.insecureTrustAnyAk());
            ReloadingVerifier verifier = new ReloadingVerifier(file, ReloadingVerifier.PublicKeySource.file(publicKey), trust, ecdsa);
            holder.start(verifier, file.toAbsolutePath().getParent());
            return verifier;
        } catch (IOException | MeasurementsException | CertificateException e) {
            throw new IllegalStateException("cannot build the attestation verifier: " + e.getMessage(), e);
        }
    }

    private static AkTrust akTrust(Optional<String> ekCaFile, boolean insecureAnyAk)
            throws IOException, CertificateException {
        if (ekCaFile.isPresent()) {
            byte[] pem = Files.readAllBytes(Path.of(ekCaFile.get()));
            List<X509Certificate> anchors = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem)).stream()
                    .map(c -> (X509Certificate) c).toList();
            return AkTrust.ekCa(anchors);
        }
        if (insecureAnyAk) {
            return AkTrust.insecureTrustAnyAk();
        }
        throw new IllegalStateException("set sextant.join.ek-ca-file (or, for development only, "
                + "sextant.join.insecure-trust-any-ak=true)");
    }
}
