package dev.sextant.nodeboot.joinclient;

import dev.sextant.attestation.policy.MeasurementsException;
import dev.sextant.attestation.policy.MeasurementsFile;
import dev.sextant.nodeboot.deploy.EtcdMemberIdentity;
import dev.sextant.proto.v1.ControlPlaneJoin;
import dev.sextant.proto.v1.EtcdPeer;
import dev.sextant.proto.v1.SignedMeasurements;
import dev.sextant.serviceconfig.JoinServiceConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The control-plane part of a control plane's join ticket ({@code ControlPlaneJoin}), checked before the node
 * lock like every other field: a master secret and salt the KMS accepts, the etcd cluster to join with this
 * node's own member in it under the peer URL it asked for, and measurements signed by the key they came with.
 * What fails here would otherwise fail after the lock, with the disk re-keyed and the node's place bound.
 */
final class ControlPlaneTicketCheck {
    /** The KMS's own floors (its MasterSecret): 128 bits of secret, 256 bits of salt. */
    static final int MIN_SECRET_BYTES = 16;
    static final int MIN_SALT_BYTES = 32;
    /** The KMS reads no key file larger than this. */
    static final int MAX_KEY_BYTES = 4096;

    private ControlPlaneTicketCheck() {
    }

    /** Problems of {@code cp}, for a node that asked to join as {@code own}. */
    static List<String> problems(ControlPlaneJoin cp, EtcdPeer own) {
        List<String> problems = new ArrayList<>();
        size(problems, "control_plane.master_secret", cp.getMasterSecret().size(), MIN_SECRET_BYTES);
        size(problems, "control_plane.master_salt", cp.getMasterSalt().size(), MIN_SALT_BYTES);
        members(problems, cp.getEtcdMembersList(), own);
        measurements(problems, cp.getJoinMeasurements());
        return problems;
    }

    private static void size(List<String> problems, String field, int size, int min) {
        if (size < min || size > MAX_KEY_BYTES) {
            problems.add(field + " has " + size + " bytes, not between " + min + " and " + MAX_KEY_BYTES + " (the KMS's sizes)");
        }
    }

    /** Every member a name and a URL etcd.env can say; no name or peer URL twice; this node's own as it asked. */
    private static void members(List<String> problems, List<EtcdPeer> members, EtcdPeer own) {
        if (members.size() > JoinServiceConfig.MAX_CONTROL_PLANES) {
            problems.add("control_plane.etcd_members lists " + members.size() + " members; a cluster has at most "
                    + JoinServiceConfig.MAX_CONTROL_PLANES);
            return;
        }
        Set<String> names = new HashSet<>();
        Set<String> peerUrls = new HashSet<>();
        boolean ownListed = false;
        for (int i = 0; i < members.size(); i++) {
            EtcdPeer member = members.get(i);
            if (!EtcdMemberIdentity.isNodeName(member.getName())) {
                problems.add("control_plane.etcd_members[" + i + "].name is not an RFC 1123 node name");
            } else if (!names.add(member.getName())) {
                problems.add("control_plane.etcd_members[" + i + "] names a member listed before");
            }
            if (!isPeerUrl(member.getPeerUrl())) {
                problems.add("control_plane.etcd_members[" + i + "].peer_url is not of the form https://HOST:PORT");
            } else if (!peerUrls.add(member.getPeerUrl())) {
                problems.add("control_plane.etcd_members[" + i + "].peer_url is another member's");
            }
            ownListed |= member.getName().equals(own.getName()) && member.getPeerUrl().equals(own.getPeerUrl());
        }
        if (!ownListed) {
            problems.add("control_plane.etcd_members does not list this node's member " + own.getName()
                    + " under the peer URL it asked for, " + own.getPeerUrl());
        }
    }

    /** https://HOST:PORT and nothing more: etcd refuses a peer URL with a path. */
    private static boolean isPeerUrl(String url) {
        return url.length() <= TicketCheck.MAX_URL_CHARS && TicketCheck.isHttpsHostPort(url)
                && URI.create(url).getRawPath().isEmpty();
    }

    /**
     * The measurements this node's join service will admit machines by: signed, and by the key sent with them
     * (which is the operator's, as the issuing service holds it).
     */
    private static void measurements(List<String> problems, SignedMeasurements signed) {
        String field = "control_plane.join_measurements";
        if (signed.getSignature().isEmpty()) {
            problems.add(field + " carry no signature");
            return;
        }
        try {
            MeasurementsFile.verifySet(signed.getJson().toByteArray(), signed.getSignature().toByteArray(),
                    signed.getPublicKeyPem());
        } catch (MeasurementsException e) {
            problems.add(field + " (" + signed.getJson().size() + " bytes, signature " + signed.getSignature().size()
                    + " bytes) do not verify under the public key sent with them, or are no measurement set");
        }
    }
}
