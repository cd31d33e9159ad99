package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmtSignature;
import dev.sextant.tpm.NvIndices;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;
import java.util.SortedMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command against a real swtpm. */
class TpmClientTest {
    private static Swtpm swtpm;
    private static TpmClient tpm;

    @BeforeAll
    static void start() throws Exception {
        Swtpm.assumeAvailable();
        swtpm = Swtpm.start();
        tpm = swtpm.client();
    }

    @AfterAll
    static void stop() throws Exception {
        if (swtpm != null) {
            swtpm.close();
        }
    }

    private static byte[] sha256(byte[]... parts) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (byte[] p : parts) {
            sha.update(p);
        }
        return sha.digest();
    }

    @Test
    @DisplayName("Startup on a TPM that swtpm already started is tolerated (TPM_RC_INITIALIZE)")
    void startupTwice() throws Exception {
        tpm.startup();
        tpm.startup();
    }

    @Test
    @DisplayName("GetRandom returns exactly the requested number of bytes, across several calls")
    void getRandom() throws Exception {
        byte[] a = tpm.getRandom(100);
        assertEquals(100, a.length);
        assertFalse(Arrays.equals(a, tpm.getRandom(100)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AkTemplate.class)
    @DisplayName("CreatePrimary with an AK template yields the same key every time; FlushContext frees it")
    void createPrimaryIsDeterministic(AkTemplate template) throws Exception {
        CreatedPrimary first = tpm.createAk(template);
        CreatedPrimary second = tpm.createAk(template);
        try {
            assertArrayEquals(first.tpmtPublic(), second.tpmtPublic());
            assertArrayEquals(first.name(), second.name());
            assertEquals(0x80, first.handle() >>> 24, "a transient handle");
        } finally {
            tpm.flushContext(first.handle());
            tpm.flushContext(second.handle());
        }
        TpmException e = assertThrows(TpmException.class, () -> tpm.flushContext(first.handle()));
        assertTrue(e.getMessage().startsWith("TPM2_FlushContext failed: TPM_RC_"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AkTemplate.class)
    @DisplayName("Quote signs TPMS_ATTEST with the qualifying data as extraData, in the AK's own scheme")
    void quote(AkTemplate template) throws Exception {
        CreatedPrimary ak = tpm.createAk(template);
        try {
            byte[] qualifying = sha256("nonce".getBytes());
            QuoteResult q = tpm.quote(ak.handle(), qualifying);
            byte[] attest = q.attest();
            assertEquals(0xff544347, java.nio.ByteBuffer.wrap(attest).getInt(), "TPM_GENERATED_VALUE");
            assertTrue(indexOf(attest, qualifying) > 0, "extraData carries the qualifying data");
            TpmtSignature signature = TpmtSignature.parse(q.signature());
            assertEquals(template == AkTemplate.ECC_P256 ? TpmAlg.ECDSA : TpmAlg.RSASSA, signature.sigAlg());
            assertEquals(TpmAlg.SHA256, signature.hashAlg());
        } finally {
            tpm.flushContext(ak.handle());
        }
    }

    @Test
    @DisplayName("Quote with a flushed key fails with a decoded TPM_RC_REFERENCE_H0 naming TPM2_Quote")
    void quoteWithBadHandle() throws Exception {
        CreatedPrimary ak = tpm.createAk(AkTemplate.ECC_P256);
        tpm.flushContext(ak.handle());
        TpmException e = assertThrows(TpmException.class, () -> tpm.quote(ak.handle(), new byte[32]));
        assertEquals("TPM2_Quote failed: TPM_RC_REFERENCE_H0 (0x910)", e.getMessage());
    }

    @Test
    @DisplayName("PCR_Read returns all 24 SHA-256 PCRs although one call returns at most 8")
    void pcrReadAll() throws Exception {
        SortedMap<Integer, byte[]> pcrs = tpm.pcr().readAll(TpmAlg.SHA256);
        assertEquals(24, pcrs.size());
        pcrs.values().forEach(v -> assertEquals(32, v.length));
    }

    @Test
    @DisplayName("PCR_Extend sets the PCR to SHA-256(old || digest)")
    void pcrExtend() throws Exception {
        byte[] old = tpm.pcr().readAll(TpmAlg.SHA256).get(16);
        byte[] digest = sha256("extend me".getBytes());
        tpm.pcr().extend(16, digest);
        assertArrayEquals(sha256(old, digest), tpm.pcr().readAll(TpmAlg.SHA256).get(16));
    }

    @Test
    @DisplayName("PCR_Event sets the PCR to SHA-256(old || SHA-256(data)) and returns SHA-256(data)")
    void pcrEvent() throws Exception {
        byte[] old = tpm.pcr().readAll(TpmAlg.SHA256).get(15);
        byte[] data = "node lock".getBytes();
        assertArrayEquals(sha256(data), tpm.pcr().event(15, data));
        assertArrayEquals(sha256(old, sha256(data)), tpm.pcr().readAll(TpmAlg.SHA256).get(15));
    }

    @Test
    @DisplayName("NV_DefineSpace, NV_Write and NV_Read round-trip data larger than one chunk; findPublic finds the index only while it is defined")
    void nvRoundTrip() throws Exception {
        int index = 0x01500001;
        byte[] data = tpm.getRandom(2000);
        tpm.nv().defineSpace(index, 0x02060006, data.length);
        try {
            tpm.nv().write(index, data);
            NvPublic pub = tpm.nv().readPublic(index);
            assertEquals(index, pub.index());
            assertEquals(2000, pub.dataSize());
            assertTrue(pub.written());
            assertArrayEquals(pub.name(), tpm.nv().findPublic(index).orElseThrow().name());
            assertArrayEquals(data, tpm.nv().read(index));
            TpmException again = assertThrows(TpmException.class, () -> tpm.nv().defineSpace(index, 0x02060006, 8));
            assertEquals("TPM2_NV_DefineSpace failed: TPM_RC_NV_DEFINED (0x14c)", again.getMessage());
        } finally {
            tpm.nv().undefineSpace(index);
        }
        TpmException gone = assertThrows(TpmException.class, () -> tpm.nv().readPublic(index));
        assertTrue(gone.is(TpmRc.HANDLE), gone.getMessage());
        assertEquals(Optional.empty(), tpm.nv().findPublic(index), "an index that is not defined is not found");
    }

    @Test
    @DisplayName("NV_Read reads the EK certificate swtpm_setup stored at 0x01C00002")
    void readsEkCertificate() throws Exception {
        byte[] der = tpm.nv().read(NvIndices.EK_CERT_RSA);
        assertEquals(0x30, der[0] & 0xff, "a DER SEQUENCE");
        assertTrue(der.length > 500);
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(haystack, i, i + needle.length), needle)) {
                return i;
            }
        }
        return -1;
    }
}
