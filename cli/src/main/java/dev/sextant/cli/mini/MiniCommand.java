package dev.sextant.cli.mini;

import picocli.CommandLine.Command;

@Command(name = "mini", mixinStandardHelpOptions = true,
        description = "A local confidential cluster of QEMU nodes on this machine: one control plane and N workers, "
                + "each with a software TPM, verified over attested TLS, initialized and joined. Files (logs, TPM "
                + "states, state disks, mini.json) live in --dir (default $SEXTANT_MINI_DIR, else out/mini).",
        subcommands = {UpCommand.class, StatusCommand.class, DownCommand.class})
public final class MiniCommand {
}
