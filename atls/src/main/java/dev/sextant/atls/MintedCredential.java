package dev.sextant.atls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/** A per-handshake key and the self-signed certificate that carries its evidence. */
record MintedCredential(PrivateKey key, X509Certificate certificate) {}
