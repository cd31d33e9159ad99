package dev.sextant.nodeboot.joinclient;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

import java.io.IOException;
import java.io.StringWriter;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

/**
 * The kubelet's client key, made on the node so it never travels, and its PKCS#10 request for
 * CN=system:node:NAME, O=system:nodes (the identity the Node authorizer expects).
 */
public record KubeletCredentials(byte[] csrDer, String privateKeyPem) {
    public static KubeletCredentials create(String nodeName) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair key = generator.generateKeyPair();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "system:nodes").addRDN(BCStyle.CN, "system:node:" + nodeName).build();
        try {
            var csr = new JcaPKCS10CertificationRequestBuilder(subject, key.getPublic())
                    .build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate()));
            StringWriter pem = new StringWriter();
            try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
                writer.writeObject(key.getPrivate());
            }
            return new KubeletCredentials(csr.getEncoded(), pem.toString());
        } catch (OperatorCreationException | IOException e) {
            throw new GeneralSecurityException("building the kubelet CSR: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "KubeletCredentials[csr=" + csrDer.length + " bytes, key=<redacted>]";
    }
}
