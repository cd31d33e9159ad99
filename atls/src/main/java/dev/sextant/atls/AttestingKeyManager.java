package dev.sextant.atls;

import dev.sextant.attestation.Purpose;
import dev.sextant.attestation.Variant;
import dev.sextant.attestation.digest.Sha256;
import dev.sextant.attestation.issue.AttestationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Presents a freshly minted certificate in every handshake. When this side attests
 * ({@link OwnAttestation.Attests}), the certificate carries a document for this side's aTLS purpose
 * over the nonce the PEER chose (server: ClientHello.random, client: ServerHello.random) and
 * SHA-256 of the minted SPKI; otherwise it is a bare self-signed certificate. Extends
 * X509ExtendedKeyManager because only the engine overloads see the engine.
 */
final class AttestingKeyManager extends X509ExtendedKeyManager {
    private static final Logger LOG = LoggerFactory.getLogger(AttestingKeyManager.class);
    private static final String KEY_TYPE = "EC"; // a P-256 key matches ecdsa_secp256r1_sha256 only
    /** Aliases are fetched right after they are chosen; more pending than this means a leak. */
    private static final int MAX_PENDING = 1024;

    private final CertificateMinter minter;
    private final OwnAttestation own;
    private final Variant variant;
    // getCertificateChain/getPrivateKey have no engine argument, hence one unique alias per handshake.
    private final Map<String, MintedCredential> pending = new ConcurrentHashMap<>();
    private final AtomicLong counter = new AtomicLong();

    AttestingKeyManager(CertificateMinter minter, OwnAttestation own, Variant variant) {
        this.minter = minter;
        this.own = Objects.requireNonNull(own, "own");
        this.variant = variant;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        if (!KEY_TYPE.equals(keyType)) {
            return null;
        }
        Optional<byte[]> clientRandom = TlsRandoms.client(engine);
        // The server's own record of this handshake's client random, for calls that bind a proof to it.
        clientRandom.ifPresent(random -> HandshakeRandom.recordClient(engine, random));
        return mint(clientRandom, Purpose.ATLS_SERVER);
    }

    /**
     * A client that does not attest presents no certificate at all: a server that verifies clients only
     * when they present one (the join service's port, where the operator calls without a TPM) must not
     * take a bare certificate for a failed attestation; a server that requires one refuses either way.
     */
    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        if (own instanceof OwnAttestation.None) {
            return null;
        }
        return Arrays.asList(keyTypes).contains(KEY_TYPE) ? mint(TlsRandoms.server(engine), Purpose.ATLS_CLIENT) : null;
    }

    /** Returns null (no certificate, so the handshake fails) whenever evidence cannot be produced. */
    private String mint(Optional<byte[]> peerNonce, Purpose purpose) {
        String role = purpose == Purpose.ATLS_SERVER ? "server" : "client";
        if (peerNonce.isEmpty()) {
            LOG.warn("aTLS {}: no TLS random on this engine (needs the OPENSSL provider); sending no certificate", role);
            return null;
        }
        if (pending.size() >= MAX_PENDING) {
            pending.clear();
        }
        try {
            KeyPair keys = minter.newKeyPair();
            byte[] document = null;
            byte[] proof = null;
            if (own instanceof OwnAttestation.Attests attests) {
                byte[] spkiHash = Sha256.of(keys.getPublic().getEncoded());
                document = attests.attester().attest(purpose, peerNonce.get(), spkiHash).toByteArray();
                if (attests.prover().isPresent()) {
                    proof = attests.prover().get().prove(peerNonce.get(), spkiHash);
                    if (proof.length > HandshakeProof.MAX_BYTES) {
                        throw new GeneralSecurityException("the handshake proof has " + proof.length + " bytes, more than "
                                + HandshakeProof.MAX_BYTES);
                    }
                }
            }
            String alias = "atls-" + role + "-" + counter.incrementAndGet();
            pending.put(alias, minter.certify(keys, variant, document, proof));
            return alias;
        } catch (AttestationException | GeneralSecurityException e) {
            LOG.warn("aTLS {}: cannot produce evidence, sending no certificate: {}", role, e.getMessage());
            return null;
        }
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        MintedCredential minted = pending.get(alias);
        return minted == null ? null : new X509Certificate[] {minted.certificate()};
    }

    /** Netty fetches the chain, then the key: the key is the last use of the alias. */
    @Override
    public PrivateKey getPrivateKey(String alias) {
        MintedCredential minted = pending.remove(alias);
        return minted == null ? null : minted.key();
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) { return null; }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) { return null; }

    /** Socket-based callers have no TLS random to bind to: refuse. */
    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) { return null; }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) { return null; }
}
