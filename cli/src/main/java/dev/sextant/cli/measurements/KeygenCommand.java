package dev.sextant.cli.measurements;

import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import dev.sextant.cli.failure.CliFailure;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.concurrent.Callable;

@Command(name = "keygen",
        description = "Create an Ed25519 signing key pair: DIR/measurements-key.pem (private, 0600) and DIR/measurements-pub.pem.",
        footer = "  sextant measurements keygen --dir keys")
public final class KeygenCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "where the key pair goes")
    Path dir;

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(dir);
        Path privatePem = dir.resolve("measurements-key.pem");
        Path publicPem = dir.resolve("measurements-pub.pem");
        if (Files.exists(privatePem)) {
            throw new CliFailure("--dir " + dir + " already holds a signing key, " + privatePem.getFileName()
                    + ": it is never replaced; move it away or pass another --dir");
        }
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Files.createFile(privatePem, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        writePem(privatePem, pair.getPrivate());
        writePem(publicPem, pair.getPublic());
        spec.commandLine().getOut().println(publicPem);
        return 0;
    }

    private static void writePem(Path file, Object key) throws IOException {
        try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(key);
        }
    }
}
