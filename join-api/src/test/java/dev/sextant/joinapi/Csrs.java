package dev.sextant.joinapi;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequestBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/** Kubelet CSRs as a node makes them (ECDSA P-256), and broken variants. */
final class Csrs {
    private Csrs() {
    }

    static KeyPair ecKey() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] kubelet(String nodeName) {
        return csr("CN=system:node:" + nodeName + ",O=system:nodes", null);
    }

    static byte[] csr(String subject, ExtensionsGenerator extensions) {
        return csr(subject, extensions, false);
    }

    static byte[] withChallengePassword(String nodeName) {
        return csr("CN=system:node:" + nodeName + ",O=system:nodes", null, true);
    }

    static byte[] withSan(String subject, GeneralName... names) {
        try {
            ExtensionsGenerator ext = new ExtensionsGenerator();
            ext.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            return csr(subject, ext);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] csr(String subject, ExtensionsGenerator extensions, boolean challenge) {
        try {
            KeyPair key = ecKey();
            PKCS10CertificationRequestBuilder b = new JcaPKCS10CertificationRequestBuilder(new X500Name(subject), key.getPublic());
            if (extensions != null) {
                b.addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, extensions.generate());
            }
            if (challenge) {
                b.addAttribute(PKCSObjectIdentifiers.pkcs_9_at_challengePassword,
                        new org.bouncycastle.asn1.DERPrintableString("hunter2"));
            }
            return b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())).getEncoded();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
