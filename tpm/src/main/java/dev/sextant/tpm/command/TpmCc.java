package dev.sextant.tpm.command;

/** TPM_CC values of the commands Sextant sends (TPM 2.0 Part 2, §6.5.2), with their names. */
public enum TpmCc {
    NV_UNDEFINE_SPACE(0x122, "TPM2_NV_UndefineSpace"),
    NV_DEFINE_SPACE(0x12A, "TPM2_NV_DefineSpace"),
    CREATE_PRIMARY(0x131, "TPM2_CreatePrimary"),
    NV_WRITE(0x137, "TPM2_NV_Write"),
    PCR_EVENT(0x13C, "TPM2_PCR_Event"),
    STARTUP(0x144, "TPM2_Startup"),
    NV_READ(0x14E, "TPM2_NV_Read"),
    QUOTE(0x158, "TPM2_Quote"),
    FLUSH_CONTEXT(0x165, "TPM2_FlushContext"),
    NV_READ_PUBLIC(0x169, "TPM2_NV_ReadPublic"),
    START_AUTH_SESSION(0x176, "TPM2_StartAuthSession"),
    GET_RANDOM(0x17B, "TPM2_GetRandom"),
    PCR_READ(0x17E, "TPM2_PCR_Read"),
    POLICY_PCR(0x17F, "TPM2_PolicyPCR"),
    PCR_EXTEND(0x182, "TPM2_PCR_Extend"),
    POLICY_GET_DIGEST(0x189, "TPM2_PolicyGetDigest");

    private final int code;
    private final String specName;

    TpmCc(int code, String specName) {
        this.code = code;
        this.specName = specName;
    }

    public int code() { return code; }

    public String specName() { return specName; }
}
