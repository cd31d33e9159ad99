package dev.sextant.cli.tpm;

import dev.sextant.tpm.command.TpmClient;
import dev.sextant.tpmmanufacturer.provision.AkProvisioner;
import dev.sextant.tpmmanufacturer.swtpm.LocalCa;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "provision",
        description = "Derive the AK and store its certificate, issued by the EK's CA, in NV 0x01381001.",
        footer = "  sextant tpm provision --tpm swtpm:127.0.0.1:2321 --ca ca")
public final class ProvisionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--tpm", required = true, paramLabel = "TPM", description = "swtpm:HOST:PORT or device:/dev/tpmrm0")
    String tpm;

    @Option(names = "--ca", required = true, paramLabel = "DIR", description = "directory of a CA made by 'sextant tpm ca'")
    Path caDir;

    @Override
    public Integer call() throws Exception {
        LocalCa ca = TpmInputs.ca(caDir);
        try (TpmClient client = TpmInputs.open(tpm)) {
            var certificate = new AkProvisioner(client, ca.certificate(), ca.key()).provision();
            spec.commandLine().getOut().println("AK certificate: " + certificate.getSubjectX500Principal()
                    + ", issued by " + certificate.getIssuerX500Principal());
        }
        return 0;
    }
}
