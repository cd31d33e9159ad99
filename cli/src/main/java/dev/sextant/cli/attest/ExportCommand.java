package dev.sextant.cli.attest;

import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpm.attest.QuoteExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Write the SHA-256 quote as tpm2-tools files (ak.pub, quote.msg, quote.sig, pcrs.bin)",
                "and print the qualifying data as hex, for:",
                "  tpm2_checkquote -u ak.pub -m quote.msg -s quote.sig -f pcrs.bin -g sha256 -q QUALHEX"})
public final class ExportCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--doc", required = true)
    Path document;

    @Option(names = "--dir", required = true)
    Path dir;

    @Override
    public Integer call() throws Exception {
        AttestationDocument doc = AttestationDocument.parseFrom(Files.readAllBytes(document));
        Files.createDirectories(dir);
        spec.commandLine().getOut().println(QuoteExport.write(doc, dir).qualifyingDataHex());
        return 0;
    }
}
