package dev.sextant.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

@DisplayName("sextant --help")
class HelpTest {
    @Test
    @DisplayName("every command's help shows an example invocation of that very command and its exit codes")
    void everyCommandHasAnExampleAndExitCodes() {
        List<String> missing = new ArrayList<>();
        check(Main.commandLine(), missing);
        assertEquals(List.of(), missing);
    }

    private static void check(CommandLine command, List<String> missing) {
        String name = command.getCommandSpec().qualifiedName();
        String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
        String example = help.contains("\nExample:\n") ? help.substring(help.indexOf("\nExample:\n")) : "";
        if (!Pattern.compile(Pattern.quote(name) + "(\\s|$)").matcher(example).find()) {
            missing.add(name + ": no example that runs it");
        }
        if (example.lines().skip(2).anyMatch(line -> !line.isEmpty() && !line.startsWith("  "))) {
            missing.add(name + ": the example is too wide and wraps");
        }
        if (!help.contains("\nExit codes:\n") || !help.contains("   0   ") || !help.contains("   2   ")) {
            missing.add(name + ": no exit codes");
        }
        command.getSubcommands().values().forEach(sub -> check(sub, missing));
    }
}
