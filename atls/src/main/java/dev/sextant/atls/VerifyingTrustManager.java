package dev.sextant.atls;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.attestation.verify.AttestationRejected;
import dev.sextant.attestation.verify.AttestationVerifier;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.Reason;
import io.netty.handler.ssl.ResumableX509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Verifies the peer's evidence inside the handshake, against the nonce THIS side chose (server:
 * ServerHello.random, client: ClientHello.random), so a bad peer fails the handshake. On success
 * the {@link AttestedState} is stored in the handshake session for {@link PeerAttestation}.
 * There is always a verifier: a client that accepts any server uses {@link AnyServerTrustManager},
 * and a server that verifies no client asks for no certificate.
 */
final class VerifyingTrustManager extends X509ExtendedTrustManager implements ResumableX509ExtendedTrustManager {
    private static final Logger LOG = LoggerFactory.getLogger(VerifyingTrustManager.class);

    private final AttestationVerifier verifier;
    private final Variant variant;
    private final Clock clock;
    private final Ecdsa ecdsa; // the certificate's self-signature
    /** Rejections the handshake completes for, to be told to the client in its calls ({@link ClientVerification#telling}). */
    private final Set<Reason> toldInCall;
    /** What the peer's {@link HandshakeProof} must pass after its attestation did. */
    private final HandshakeProofCheck proofCheck;

    VerifyingTrustManager(AttestationVerifier verifier, Variant variant, Clock clock, Ecdsa ecdsa) {
        this(verifier, variant, clock, ecdsa, Set.of());
    }

    VerifyingTrustManager(AttestationVerifier verifier, Variant variant, Clock clock, Ecdsa ecdsa, Set<Reason> toldInCall) {
        this(verifier, variant, clock, ecdsa, toldInCall, HandshakeProofCheck.NONE);
    }

    VerifyingTrustManager(AttestationVerifier verifier, Variant variant, Clock clock, Ecdsa ecdsa, Set<Reason> toldInCall,
                          HandshakeProofCheck proofCheck) {
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.variant = variant;
        this.clock = clock;
        this.ecdsa = ecdsa;
        this.toldInCall = Set.copyOf(toldInCall);
        this.proofCheck = Objects.requireNonNull(proofCheck, "proofCheck");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain, engine, TlsRandoms.server(engine), Purpose.ATLS_CLIENT);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain, engine, TlsRandoms.client(engine), Purpose.ATLS_SERVER);
    }

    /** {@code purpose} is the peer's role: a quote made for any other context is a relay. */
    private void check(X509Certificate[] chain, SSLEngine engine, Optional<byte[]> ownNonce, Purpose purpose)
            throws CertificateException {
        String peer = purpose == Purpose.ATLS_SERVER ? "server" : "client";
        if (ownNonce.isEmpty()) {
            LOG.warn("aTLS: rejected {}: no TLS random on this engine (needs the OPENSSL provider)", peer);
            throw new CertificateException("aTLS needs the OPENSSL provider: no TLS random");
        }
        try {
            PeerEvidence evidence = PeerEvidence.extract(chain, variant, clock, ecdsa);
            AttestedState state = verifier.verify(evidence.document(), purpose, ownNonce.get(), evidence.spkiHash());
            proofCheck.check(evidence.proof(), ownNonce.get(), evidence.spkiHash());
            record(engine, state);
        } catch (AttestationRejected rejected) {
            LOG.warn("aTLS: rejected {} attestation: {}", peer, rejected.toString());
            if (purpose == Purpose.ATLS_CLIENT && toldInCall.contains(rejected.reason())) {
                // No attested state: the session carries only the refusal, which closes every call on it.
                refuse(engine, rejected);
                return;
            }
            throw new CertificateException("aTLS " + peer + " attestation rejected: " + rejected, rejected);
        } catch (RuntimeException bug) { // a verifier bug must still fail closed, and say so once
            LOG.warn("aTLS: rejected {}: the verifier failed: {}", peer, bug.toString());
            throw new CertificateException("aTLS " + peer + " verification failed", bug);
        }
    }

    private static void refuse(SSLEngine engine, AttestationRejected rejected) throws CertificateException {
        SSLSession session = engine.getHandshakeSession();
        if (session == null) { // cannot tell the application: fail the handshake as for any rejection
            throw new CertificateException("aTLS client attestation rejected: " + rejected, rejected);
        }
        PeerAttestation.refuse(session, rejected);
    }

    private static void record(SSLEngine engine, AttestedState state) throws CertificateException {
        SSLSession session = engine.getHandshakeSession();
        if (session == null) { // cannot hand the state to the application: fail closed
            throw new CertificateException("aTLS: no handshake session to record the attested state in");
        }
        PeerAttestation.record(session, state);
    }

    /**
     * Resumption skips minting and verification. It is switched off (no tickets, no cache); should
     * Netty still report a resumed session, it is refused here. (Observed: with tickets on, a TLS 1.3
     * resumption did not reach this hook, so the switches and the interceptor are the real locks.)
     */
    @Override
    public void resumeClientTrusted(X509Certificate[] chain, SSLEngine engine) throws CertificateException {
        refuseResumption();
    }

    @Override
    public void resumeServerTrusted(X509Certificate[] chain, SSLEngine engine) throws CertificateException {
        refuseResumption();
    }

    private static void refuseResumption() throws CertificateException {
        LOG.warn("aTLS: rejected a resumed session (its evidence is not fresh)");
        throw new CertificateException("aTLS: session resumption is not allowed");
    }

    /** Engine-less callers have no TLS random to verify against: refuse. */
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("aTLS verification needs the SSLEngine");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("aTLS verification needs the SSLEngine");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("aTLS verification needs the SSLEngine");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("aTLS verification needs the SSLEngine");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
}
