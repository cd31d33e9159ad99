package dev.sextant.attestation.verify;

import dev.sextant.attestation.Variant;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a verifier established about a peer. A class rather than a record so that its constructor
 * can be package-private: only verifiers create one, so holding one means the checks ran.
 */
public final class AttestedState {
    private final Variant variant;
    private final SortedMap<Integer, byte[]> pcrs;
    private final byte[] akName;
    private final List<String> warnings;
    private final String imageVersion;

    AttestedState(Variant variant, SortedMap<Integer, byte[]> pcrs, byte[] akName, List<String> warnings, String imageVersion) {
        this.variant = variant;
        this.imageVersion = imageVersion;
        this.pcrs = Collections.unmodifiableSortedMap(new TreeMap<>(pcrs));
        this.akName = akName.clone();
        this.warnings = List.copyOf(warnings);
    }

    public Variant variant() { return variant; }

    /** The quoted SHA-256 PCR values, by index. */
    public SortedMap<Integer, byte[]> pcrs() { return pcrs; }

    /**
     * TPM name of the attestation key (nameAlg || digest of its TPMT_PUBLIC): a stable machine
     * identity for bindings such as disk UUID or node name.
     */
    public byte[] akName() { return akName.clone(); }

    /**
     * The version of the image in the verifier's measurement set whose PCRs the quote matched: what the
     * node proved it runs ({@code unversioned} for a policy of one image without a version).
     */
    public String imageVersion() { return imageVersion; }

    /** warnOnly measurements that did not match, as sentences. */
    public List<String> warnings() { return warnings; }
}
