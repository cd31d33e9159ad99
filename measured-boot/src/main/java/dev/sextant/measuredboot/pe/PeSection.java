package dev.sextant.measuredboot.pe;

/**
 * One entry of the PE section table, as read (all sizes unsigned 32-bit, widened to long).
 * {@code virtualSize} is what the loader maps and what systemd-stub measures; {@code sizeOfRawData}
 * is what the file holds (usually rounded up to FileAlignment).
 */
public record PeSection(String name, long virtualSize, long virtualAddress,
                        long sizeOfRawData, long pointerToRawData) {
}
