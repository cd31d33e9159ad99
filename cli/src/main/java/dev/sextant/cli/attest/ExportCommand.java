package dev.sextant.cli.attest;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sextant.cli.failure.CliFailure;
import dev.sextant.cli.input.InputFiles;
import dev.sextant.proto.v1.AttestationDocument;
import dev.sextant.tpm.attest.QuoteExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "export",
        description = {"Write the SHA-256 quote as tpm2-tools files (ak.pub, quote.msg, quote.sig, pcrs.bin)",
                "and print the qualifying data as hex, for:",
                "  tpm2_checkquote -u ak.pub -m quote.msg -s quote.sig -f pcrs.bin -g sha256 -q QUALHEX"},
        footer = "  sextant attest export --doc doc.bin --dir quote/")
public final class ExportCommand implements Callable<Integer> {
    private static final String REMEDY = "pass the document that `sextant attest quote --out` wrote";

    @Spec
    CommandSpec spec;

    @Option(names = "--doc", required = true, paramLabel = "DOC", description = "the attestation document (protobuf)")
    Path document;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the tpm2-tools files go")
    Path dir;

    @Override
    public Integer call() throws Exception {
        AttestationDocument doc;
        try {
            doc = AttestationDocument.parseFrom(InputFiles.read("--doc", document, REMEDY));
        } catch (InvalidProtocolBufferException e) {
            throw new CliFailure("--doc " + document + ": not an attestation document: " + REMEDY, e);
        }
        Files.createDirectories(dir);
        spec.commandLine().getOut().println(QuoteExport.write(doc, dir).qualifyingDataHex());
        return 0;
    }
}
