package dev.sextant.cli.mini;

import picocli.CommandLine.Command;

@Command(name = "mini", footer = "  sextant mini up && sextant mini reboot worker-0 && sextant mini down",
        description = "A local confidential cluster of QEMU nodes on this machine: one control plane and N workers, "
                + "each with a software TPM, verified over attested TLS, initialized and joined; nodes reboot and the "
                + "cluster starts again with its disks kept. Files (logs, TPM "
                + "states, state disks, mini.json) live in --dir (default $SEXTANT_MINI_DIR, else out/mini).",
        subcommands = {UpCommand.class, StatusCommand.class, MiniRevokeCommand.class, RebootCommand.class, StopCommand.class, DownCommand.class,
                StartCommand.class, MiniUpgradeCommand.class})
public final class MiniCommand {
}
