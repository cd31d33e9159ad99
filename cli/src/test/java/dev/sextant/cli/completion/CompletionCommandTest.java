package dev.sextant.cli.completion;

import dev.sextant.cli.Main;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("sextant completion")
class CompletionCommandTest {
    @TempDir
    Path dir;

    private Path script(String shell) throws IOException {
        StringWriter out = new StringWriter();
        int exit = Main.commandLine().setOut(new PrintWriter(out, true)).execute("completion", shell);
        assertEquals(0, exit);
        return Files.writeString(dir.resolve("sextant." + shell), out.toString());
    }

    /** Runs bash with the script sourced and a completion request for the words typed so far. */
    private static String bash(String program) throws Exception {
        Process bash = new ProcessBuilder("bash", "-c", program).redirectErrorStream(true).start();
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
        String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, bash.exitValue(), output);
        return output;
    }

    @Test
    @DisplayName("the bash script is valid bash")
    void bashParsesIt() throws Exception {
        bash("bash -n " + script("bash"));
    }

    @Test
    @DisplayName("bash completes a subcommand name from its first letters, at the top and one level down")
    void completesSubcommands() throws Exception {
        Path script = script("bash");
        String complete = "source " + script + "; complete -p sextant >/dev/null;"
                + " COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE};"
                + " _picocli_sextant; printf '%%s\\n' \"${COMPREPLY[@]}\"";
        assertEquals("attest\n", bash(String.format(complete, "sextant att", 1)));
        assertEquals("verify\n", bash(String.format(complete, "sextant measurements ver", 2)));
    }

    @Test
    @DisplayName("the zsh script loads bash completion support itself")
    void zshScript() throws Exception {
        String zsh = Files.readString(script("zsh"));
        assertTrue(zsh.contains("bashcompinit"), zsh);
        bash("bash -n " + script("zsh"));
    }

    @Test
    @DisplayName("an unknown shell is a usage error naming the shells there are")
    void unknownShell() {
        StringWriter err = new StringWriter();
        int exit = Main.commandLine().setErr(new PrintWriter(err, true)).execute("completion", "fish");
        assertEquals(2, exit);
        assertTrue(err.toString().startsWith("sextant completion: Invalid value for positional parameter at index 0 (SHELL):"
                + " expected one of [bash, zsh] (case-sensitive) but was 'fish'"), err.toString());
    }
}
