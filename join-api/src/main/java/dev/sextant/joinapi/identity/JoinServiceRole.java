package dev.sextant.joinapi.identity;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.controlplane.HandOverFiles;
import dev.sextant.keys.role.JoinServiceRoleKey;
import jakarta.inject.Singleton;

import java.util.Optional;

/**
 * This service's hold on the cluster's join service role key: derived once from the master secret
 * files (a control plane's join service has them), or none. The handshakes prove it
 * ({@link JoinServiceRoleProver}); join tickets carry its public key, which the joining node's TPM
 * records so that its rejoins go to control planes only (docs/security.md).
 */
@Singleton
public class JoinServiceRole {
    private final HandOverFiles masterSecret;
    private volatile Optional<JoinServiceRoleKey> key;

    public JoinServiceRole(HandOverFiles masterSecret) {
        this.masterSecret = masterSecret;
    }

    /**
     * The key, or empty where this service holds no master secret.
     *
     * @throws IllegalStateException when the master secret files are configured but unreadable
     */
    public Optional<JoinServiceRoleKey> key() {
        Optional<JoinServiceRoleKey> derived = key;
        if (derived == null) {
            try {
                derived = masterSecret.joinServiceRoleKey();
            } catch (Refusal e) {
                throw new IllegalStateException("cannot derive the join service role key: " + e.getMessage(), e);
            }
            key = derived;
        }
        return derived;
    }

    /** The public key join tickets carry; empty where this service holds no master secret. */
    public Optional<byte[]> publicKey() {
        return key().map(JoinServiceRoleKey::publicKey);
    }
}
