/**
 * Attested TLS for grpc-java on Netty + BoringSSL (design decision 3).
 *
 * <p>Each handshake mints a fresh P-256 key and a self-signed certificate whose extension
 * ({@link dev.sextant.attestation.Variant#oid()}) carries an {@code AttestationDocument} bound to
 * SHA-256 of that certificate's SubjectPublicKeyInfo, under the purpose of its side
 * ({@code sextant/atls/v1/server} or {@code .../client}): a quote made for anything else, such as a
 * node's VerifyService answer, is refused, so evidence cannot be relayed between contexts. The
 * verifier's nonce is the TLS random it chose itself: ClientHello.random for the server's evidence, ServerHello.random for the
 * client's. Both are fresh and already bound into the transcript that CertificateVerify signs, so
 * the evidence cannot be replayed into another connection. Handshakes that wait for the TPM
 * together share its next quote, each document carrying the path from its own qualification to the
 * quoted root ({@link dev.sextant.attestation.QuoteBatch}). Verification runs inside the trust
 * manager, so a bad peer fails the handshake and never reaches a service method. Resumption is
 * off: a resumed session would skip minting and verification and report the old peer's state.
 * The aTLS layer's own signatures (the minted key and certificate, the peer's self-signature)
 * come from an {@link dev.sextant.attestation.ecdsa.Ecdsa}: BouncyCastle by default, native code
 * where a JVM verifies handshakes for a living (the join service).
 *
 * <p>Entry points: {@link dev.sextant.atls.AtlsContexts} (SslContexts for NettyServerBuilder and
 * NettyChannelBuilder, in the mode {@link dev.sextant.atls.OwnAttestation},
 * {@link dev.sextant.atls.ClientVerification} and {@link dev.sextant.atls.ServerVerification} name),
 * {@link dev.sextant.atls.AtlsServers} (a server context with flood limits),
 * {@link dev.sextant.atls.AtlsServerInterceptor} and
 * {@link dev.sextant.atls.PeerAttestation} (the verified state inside a service method).
 */
package dev.sextant.atls;
