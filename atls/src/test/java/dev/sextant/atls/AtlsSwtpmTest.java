package dev.sextant.atls;

import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@DisplayName("aTLS with a real swtpm-backed TpmAttester")
class AtlsSwtpmTest {
    private static SwtpmEvidence swtpm;

    @BeforeAll
    static void startSwtpm() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = new SwtpmEvidence();
    }

    @AfterAll
    static void stopSwtpm() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    @Test
    @DisplayName("mutual: the swtpm server's quote and the client's evidence are both verified, and both AK names reach the applications")
    void swtpmServerMutual() throws Exception {
        SoftwareEvidence client = new SoftwareEvidence("client");
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(swtpm.attester, client.verifier), true)) {
            GrpcPair.Reply reply = pair.call(AtlsContexts.client(client.attester, swtpm.verifier));

            assertArrayEquals(client.node.akName(), reply.clientAkSeenByService());
            assertArrayEquals(swtpm.akName(), reply.serverStateSeenByClient().map(AttestedState::akName).orElseThrow());
        }
    }

    @Test
    @DisplayName("a client that trusts another EK CA refuses the swtpm server in the handshake")
    void untrustedEkCa() throws Exception {
        SoftwareEvidence other = new SoftwareEvidence("other-ca");
        try (GrpcPair pair = new GrpcPair(AtlsContexts.server(swtpm.attester, null), false)) {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> pair.call(AtlsContexts.client(null, other.verifier)));

            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
            assertEquals(0, pair.service.invocations.get());
        }
    }
}
