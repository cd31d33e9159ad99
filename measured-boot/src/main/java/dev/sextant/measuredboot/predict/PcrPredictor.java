package dev.sextant.measuredboot.predict;

import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.io.ByteSource;
import dev.sextant.measuredboot.io.FileSource;
import dev.sextant.measuredboot.io.MalformedImageException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SortedMap;

/**
 * Predicts the SHA-256 PCRs a UKI produces when OVMF boots it directly (constellation-notes §4.2):
 * 4, 9 and 11 from the rules, 12, 13 and 15 stay zero (no cmdline override, credentials, addons
 * or sysexts; 15 is the node lock, zero until init).
 */
public final class PcrPredictor {
    /** The PCRs a prediction covers; the enforced set of the qemu-vtpm variant. */
    public static final int[] PCRS = {4, 9, 11, 12, 13, 15};

    private final Pcr4Rule pcr4 = new Pcr4Rule();
    private final Pcr9Rule pcr9 = new Pcr9Rule();
    private final Pcr11Rule pcr11 = new Pcr11Rule();

    public Prediction predict(ByteSource ukiBytes)
            throws MalformedImageException, IOException, UnpredictableUkiException {
        Uki uki = Uki.read(ukiBytes);
        PcrBank bank = new PcrBank(PCRS);
        pcr4.apply(uki, bank);
        pcr9.apply(uki, bank);
        pcr11.apply(uki, bank);
        return new Prediction(bank.values(), bank.events(), uki.stub());
    }

    public SortedMap<Integer, byte[]> predictUki(Path uki)
            throws MalformedImageException, IOException, UnpredictableUkiException {
        try (FileSource src = FileSource.open(uki)) {
            return predict(src).pcrs();
        }
    }

    /** Prediction for the UKI at {@code /EFI/BOOT/BOOTX64.EFI} on the ESP of a raw GPT disk image. */
    public Prediction predictImage(Path raw) throws MalformedImageException, IOException, UnpredictableUkiException {
        return predict(new ArraySource(EspExtractor.bootLoader(raw)));
    }
}
