package dev.sextant.atls;

import dev.sextant.ecdsanative.NativeEcdsa;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The evidence in a peer's aTLS certificate, checked in native code (join service)")
class PeerEvidenceNativeTest extends PeerEvidenceRules {
    PeerEvidenceNativeTest() throws Exception {
        super(NativeEcdsa.load());
    }
}
