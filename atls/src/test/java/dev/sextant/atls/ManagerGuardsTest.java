package dev.sextant.atls;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.ecdsa.BouncyCastleEcdsa;
import dev.sextant.attestation.verify.AttestationVerifier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("The aTLS key and trust managers fail closed")
class ManagerGuardsTest {
    private final CertificateMinter minter = CertificateMinter.createDefault();
    private final AtomicInteger verifications = new AtomicInteger();
    private final AttestationVerifier countingVerifier = (doc, purpose, nonce, userData) -> {
        verifications.incrementAndGet();
        throw new AssertionError("must not be reached");
    };
    private final VerifyingTrustManager trustManager =
            new VerifyingTrustManager(countingVerifier, Variant.QEMU_VTPM, Clock.systemUTC(),
                    new BouncyCastleEcdsa(new java.security.SecureRandom()));

    @Test
    @DisplayName("the trust manager refuses callers that give no engine, since there is no TLS random to check against")
    void engineLessChecksThrow() throws Exception {
        X509Certificate[] chain = {minter.certify(minter.newKeyPair(), Variant.QEMU_VTPM, new byte[] {1}).certificate()};

        assertThrows(CertificateException.class, () -> trustManager.checkServerTrusted(chain, "EC"));
        assertThrows(CertificateException.class, () -> trustManager.checkClientTrusted(chain, "EC"));
        assertThrows(CertificateException.class, () -> trustManager.checkServerTrusted(chain, "EC", (java.net.Socket) null));
        assertEquals(0, verifications.get());
    }

    @Test
    @DisplayName("on a JDK engine (no TLS randoms) the trust manager rejects and the key manager sends no certificate")
    void jdkEngineIsRefused() throws Exception {
        SSLEngine jdk = SSLContext.getDefault().createSSLEngine();
        X509Certificate[] chain = {minter.certify(minter.newKeyPair(), Variant.QEMU_VTPM, new byte[] {1}).certificate()};

        assertThrows(CertificateException.class, () -> trustManager.checkServerTrusted(chain, "EC", jdk));
        assertEquals(0, verifications.get());
        AttestingKeyManager keyManager = new AttestingKeyManager(minter, OwnAttestation.none(), Variant.QEMU_VTPM);
        assertNull(keyManager.chooseEngineServerAlias("EC", null, jdk));
    }

    @Test
    @DisplayName("a resumed session is refused when the side verifies its peer")
    void resumptionIsRefused() {
        SSLEngine anyEngine = null;

        assertThrows(CertificateException.class, () -> trustManager.resumeServerTrusted(new X509Certificate[0], anyEngine));
        assertThrows(CertificateException.class, () -> trustManager.resumeClientTrusted(new X509Certificate[0], anyEngine));
    }
}
