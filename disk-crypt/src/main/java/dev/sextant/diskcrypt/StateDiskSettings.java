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
 */
@ConfigurationProperties("sextant.state-disk")
public record StateDiskSettings(
        @Bindable(defaultValue = "/dev/vdb") Path device,
        @Bindable(defaultValue = "/run/sextant/luks") Path workDir,
        @Bindable(defaultValue = "/run/cryptsetup-keys.d/state.key") Path keyFile,
        @Bindable(defaultValue = "65536") int pbkdfMemoryKib,
        @Bindable(defaultValue = "0") int pbkdfIterations) {

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
