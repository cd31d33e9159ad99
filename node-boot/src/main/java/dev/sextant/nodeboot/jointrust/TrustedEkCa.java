package dev.sextant.nodeboot.jointrust;

import dev.sextant.attestation.verify.AkTrust;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The EK CA certificates a join service's AK may chain to. Only the image's bundle is trusted: it
 * lies in the verity-protected root, whose root hash is on the UKI's command line (PCR 11), so a
 * service that proves the node's own PCR 11 runs an image with the very same bundle, and the
 * operator who verified PCR 11 verified it too. The host's {@code sextant.ek-ca} setting is
 * measured by nothing: a host with a CA of its own could certify a software TPM that replays the
 * public PCR values. It is trusted only under {@code insecure-ek-ca-from-host}.
 *
 * @param anchors  the certificates to trust
 * @param fromHost whether the host's EK CA is among them (every verification then warns)
 */
record TrustedEkCa(List<X509Certificate> anchors, boolean fromHost) {
    private static final Logger LOG = LoggerFactory.getLogger(TrustedEkCa.class);

    TrustedEkCa {
        anchors = List.copyOf(anchors);
    }

    /**
     * Reads the bundles the settings allow.
     *
     * @throws IllegalStateException when no bundle may be trusted, or one is unreadable: the node
     *                               must not join; the message says how to fix it
     */
    static TrustedEkCa read(JoinServiceTrustSettings settings) {
        List<X509Certificate> anchors = new ArrayList<>(bundle(settings.ekCaFile(), JoinServiceTrustSettings.EK_CA_FILE));
        boolean hostOffers = Files.exists(settings.hostEkCaFile());
        boolean trustHost = hostOffers && settings.insecureEkCaFromHost();
        if (trustHost) {
            anchors.addAll(bundle(settings.hostEkCaFile(), JoinServiceTrustSettings.INSECURE_EK_CA_FROM_HOST));
        } else if (hostOffers) {
            LOG.warn("Ignoring the EK CA the host offers ({}, sextant.ek-ca): no PCR measures it; the join service's AK must"
                    + " chain to the image's EK CA ({})", settings.hostEkCaFile(), settings.ekCaFile());
        }
        if (anchors.isEmpty()) {
            throw new IllegalStateException("cannot verify the join service: this image holds no EK CA at "
                    + settings.ekCaFile() + "; build the image with `sextant image build --ek-ca PEM` (the CA that"
                    + " certifies your nodes' TPMs)" + (hostOffers && !trustHost
                    ? "; the EK CA the host offers is not trusted (" + JoinServiceTrustSettings.INSECURE_EK_CA_FROM_HOST
                    + "=true would trust it, insecurely)" : ""));
        }
        return new TrustedEkCa(anchors, trustHost);
    }

    AkTrust akTrust() {
        return AkTrust.ekCa(anchors);
    }

    /** The certificates of a PEM bundle, none when there is no such file. */
    private static List<X509Certificate> bundle(Path file, String setting) {
        try {
            List<X509Certificate> certificates = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)))) {
                certificates.add((X509Certificate) c);
            }
            if (certificates.isEmpty()) {
                throw new CertificateException("it holds no certificate");
            }
            return certificates;
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException | CertificateException | RuntimeException e) {
            // No cause attached: the node logs the root cause's message, and this one says what to fix.
            throw new IllegalStateException("cannot verify the join service: the EK CA file " + file + " (" + setting
                    + ") is unreadable or not a PEM bundle of certificates: " + e.getMessage());
        }
    }
}
