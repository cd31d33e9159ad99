package dev.sextant.measuredboot.gpt;

import java.util.UUID;

/** One used GPT partition entry (UEFI 2.10 §5.3.3); LBAs are inclusive, as on disk. */
public record GptPartition(int index, UUID type, UUID unique, long firstLba, long lastLba, String name) {

    /** EFI System Partition type GUID (UEFI 2.10 Table 5.7). */
    public static final UUID ESP_TYPE = UUID.fromString("c12a7328-f81f-11d2-ba4b-00a0c93ec93b");

    public boolean isEsp() { return ESP_TYPE.equals(type); }
}
