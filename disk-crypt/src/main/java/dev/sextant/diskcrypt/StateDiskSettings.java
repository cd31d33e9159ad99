package dev.sextant.diskcrypt;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The state disk and how its key slots are protected.
 *
 * @param device          block device (or image file) holding the LUKS2 state disk
 * @param workDir         tmpfs directory for detached header copies and key files (0700)
 * @param keyFile         the boot-time random passphrase left by the initramfs
 * @param pbkdfMemoryKib  argon2id memory per key slot (KiB)
 * @param pbkdfIterations argon2id iterations; 0 lets cryptsetup benchmark for 2 s
 *
 * <p>The defaults are argon2id's least cost (4 iterations over 8 MiB; the header check still demands
 * argon2id) because every key in these key slots is 32 random or HKDF bytes, never a passphrase: no
 * derivation cost makes 2^256 guesses any harder ({@link KeyCheckValue}), while cryptsetup's own 2 s
 * would be paid by every unlock, and by the operator's recovery key waiting behind it.
 */
@ConfigurationProperties("sextant.state-disk")
public record StateDiskSettings(
        @Bindable(defaultValue = "/dev/vdb") Path device,
        @Bindable(defaultValue = "/run/sextant/luks") Path workDir,
        @Bindable(defaultValue = "/run/cryptsetup-keys.d/state.key") Path keyFile,
        @Bindable(defaultValue = "8192") int pbkdfMemoryKib,
        @Bindable(defaultValue = "4") int pbkdfIterations) {

    List<String> pbkdfArgs() {
        List<String> args = new ArrayList<>(List.of("--pbkdf", "argon2id", "--pbkdf-memory",
                Integer.toString(pbkdfMemoryKib)));
        if (pbkdfIterations > 0) {
            args.addAll(List.of("--pbkdf-force-iterations", Integer.toString(pbkdfIterations)));
        } else {
            args.addAll(List.of("--iter-time", "2000"));
        }
        return args;
    }
}
