package dev.sextant.cli.completion;

import dev.sextant.cli.failure.ExitCodes;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * Prints a shell completion script for the whole command tree. picocli writes one script for both
 * shells: under zsh it loads bashcompinit itself.
 */
@Command(name = "completion",
        description = {"Print a shell completion script for sextant.",
                "bash: source <(sextant completion bash)   (or save it under /etc/bash_completion.d/)",
                "zsh:  source <(sextant completion zsh)"},
        footer = "  sextant completion bash > /etc/bash_completion.d/sextant",
        exitCodeList = {ExitCodes.DONE_ROW, ExitCodes.FAILED_ROW})
public final class CompletionCommand implements Callable<Integer> {
    public enum Shell { bash, zsh }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh")
    Shell shell;

    @Override
    public Integer call() {
        CommandSpec root = spec.root();
        spec.commandLine().getOut().print(AutoComplete.bash(root.name(), root.commandLine()));
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
