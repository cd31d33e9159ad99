package dev.sextant.tpm.command;

import java.util.Map;

/**
 * Decodes a TPM_RC into words (TPM 2.0 Part 2, §6.6). Format-1 codes (bit 7 set) name a handle,
 * session or parameter; format-0 codes are plain errors or, with the severity bit, warnings.
 */
public final class TpmRc {
    public static final int SUCCESS = 0x000;
    public static final int INITIALIZE = 0x100;
    public static final int NV_DEFINED = 0x14C;
    public static final int NV_UNINITIALIZED_BASE = 0x14A;
    public static final int HANDLE = 0x08B;
    public static final int ATTRIBUTES = 0x082;
    public static final int VALUE = 0x084;
    public static final int POLICY_FAIL = 0x09D;
    public static final int AUTH_UNAVAILABLE = 0x12F;
    public static final int NV_AUTHORIZATION = 0x149;
    public static final int RETRY = 0x922;
    public static final int TESTING = 0x90A;
    public static final int YIELDED = 0x908;

    private static final int RC_FMT1 = 0x080;
    private static final int RC_VER1 = 0x100;
    private static final int RC_WARN = 0x900;

    private static final Map<Integer, String> FMT1 = Map.ofEntries(
            Map.entry(0x01, "ASYMMETRIC"), Map.entry(0x02, "ATTRIBUTES"), Map.entry(0x03, "HASH"),
            Map.entry(0x04, "VALUE"), Map.entry(0x05, "HIERARCHY"), Map.entry(0x07, "KEY_SIZE"),
            Map.entry(0x08, "MGF"), Map.entry(0x09, "MODE"), Map.entry(0x0A, "TYPE"), Map.entry(0x0B, "HANDLE"),
            Map.entry(0x0C, "KDF"), Map.entry(0x0D, "RANGE"), Map.entry(0x0E, "AUTH_FAIL"), Map.entry(0x0F, "NONCE"),
            Map.entry(0x10, "PP"), Map.entry(0x12, "SCHEME"), Map.entry(0x15, "SIZE"), Map.entry(0x16, "SYMMETRIC"),
            Map.entry(0x17, "TAG"), Map.entry(0x18, "SELECTOR"), Map.entry(0x1A, "INSUFFICIENT"),
            Map.entry(0x1B, "SIGNATURE"), Map.entry(0x1C, "KEY"), Map.entry(0x1D, "POLICY_FAIL"),
            Map.entry(0x1F, "INTEGRITY"), Map.entry(0x20, "TICKET"), Map.entry(0x21, "RESERVED_BITS"),
            Map.entry(0x22, "BAD_AUTH"), Map.entry(0x23, "EXPIRED"), Map.entry(0x24, "POLICY_CC"),
            Map.entry(0x25, "BINDING"), Map.entry(0x26, "CURVE"), Map.entry(0x27, "ECC_POINT"));

    private static final Map<Integer, String> VER1 = Map.ofEntries(
            Map.entry(0x000, "INITIALIZE"), Map.entry(0x001, "FAILURE"), Map.entry(0x003, "SEQUENCE"),
            Map.entry(0x00B, "PRIVATE"), Map.entry(0x019, "HMAC"), Map.entry(0x020, "DISABLED"),
            Map.entry(0x021, "EXCLUSIVE"), Map.entry(0x024, "AUTH_TYPE"), Map.entry(0x025, "AUTH_MISSING"),
            Map.entry(0x026, "POLICY"), Map.entry(0x027, "PCR"), Map.entry(0x028, "PCR_CHANGED"),
            Map.entry(0x02D, "UPGRADE"), Map.entry(0x02E, "TOO_MANY_CONTEXTS"), Map.entry(0x02F, "AUTH_UNAVAILABLE"),
            Map.entry(0x030, "REBOOT"), Map.entry(0x031, "UNBALANCED"), Map.entry(0x042, "COMMAND_SIZE"),
            Map.entry(0x043, "COMMAND_CODE"), Map.entry(0x044, "AUTHSIZE"), Map.entry(0x045, "AUTH_CONTEXT"),
            Map.entry(0x046, "NV_RANGE"), Map.entry(0x047, "NV_SIZE"), Map.entry(0x048, "NV_LOCKED"),
            Map.entry(0x049, "NV_AUTHORIZATION"), Map.entry(0x04A, "NV_UNINITIALIZED"), Map.entry(0x04B, "NV_SPACE"),
            Map.entry(0x04C, "NV_DEFINED"), Map.entry(0x050, "BAD_CONTEXT"), Map.entry(0x051, "CPHASH"),
            Map.entry(0x052, "PARENT"), Map.entry(0x053, "NEEDS_TEST"), Map.entry(0x054, "NO_RESULT"),
            Map.entry(0x055, "SENSITIVE"));

    private static final Map<Integer, String> WARN = Map.ofEntries(
            Map.entry(0x001, "CONTEXT_GAP"), Map.entry(0x002, "OBJECT_MEMORY"), Map.entry(0x003, "SESSION_MEMORY"),
            Map.entry(0x004, "MEMORY"), Map.entry(0x005, "SESSION_HANDLES"), Map.entry(0x006, "OBJECT_HANDLES"),
            Map.entry(0x007, "LOCALITY"), Map.entry(0x008, "YIELDED"), Map.entry(0x009, "CANCELED"),
            Map.entry(0x00A, "TESTING"), Map.entry(0x020, "NV_RATE"), Map.entry(0x021, "LOCKOUT"),
            Map.entry(0x022, "RETRY"), Map.entry(0x023, "NV_UNAVAILABLE"));

    private TpmRc() {}

    /** The code without handle/session/parameter numbers, e.g. 0x08B for any TPM_RC_HANDLE. */
    public static int base(int rc) {
        return (rc & RC_FMT1) != 0 ? RC_FMT1 | (rc & 0x3F) : rc;
    }

    /** e.g. "TPM_RC_HANDLE (0x18b): handle 1" or "TPM_RC_NV_DEFINED (0x14c)". */
    public static String describe(int rc) {
        String hex = String.format("0x%03x", rc);
        if ((rc & RC_FMT1) != 0) {
            String name = FMT1.getOrDefault(rc & 0x3F, "unknown format-1 error " + (rc & 0x3F));
            return "TPM_RC_" + name + " (" + hex + "): " + subject(rc);
        }
        if ((rc & RC_VER1) == 0) {
            return "TPM 1.2 style response code " + hex;
        }
        if ((rc & 0x400) != 0) {
            return "vendor-defined response code " + hex;
        }
        boolean warning = (rc & 0x800) != 0;
        String name = (warning ? WARN : VER1).get(rc & 0x7F);
        if (warning && name == null && (rc & 0x7F) >= 0x10 && (rc & 0x7F) <= 0x1E && (rc & 0x7) != 0x7) {
            // REFERENCE_H0..H6 / REFERENCE_S0..S6: that handle or session is not loaded.
            name = "REFERENCE_" + ((rc & 0x08) == 0 ? "H" : "S") + (rc & 0x7);
        }
        String kind = warning ? "warning" : "error";
        return name == null ? "unknown " + kind + " " + hex : "TPM_RC_" + name + " (" + hex + ")";
    }

    // Bits 8-11 number what was wrong: bit 6 set = parameter N, else bit 11 set = session N, else handle N.
    private static String subject(int rc) {
        if ((rc & 0x40) != 0) {
            return "parameter " + ((rc >> 8) & 0xF);
        }
        int n = (rc >> 8) & 0x7;
        if (n == 0) {
            return "no handle, session or parameter named";
        }
        return ((rc & 0x800) != 0 ? "session " : "handle ") + n;
    }
}
