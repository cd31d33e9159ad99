package dev.sextant.joinapi.kubeletca;

import dev.sextant.grpcsupport.Refusal;
import dev.sextant.joinapi.refusal.JoinRefusal;
import java.io.IOException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.Attribute;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;

/**
 * Validates an untrusted kubelet CSR (DER PKCS#10) for a node name that is already validated.
 * Everything wrong becomes an INVALID_ARGUMENT refusal; no parser exception escapes. The CSR must
 * name the requested node and nothing else: subject exactly {@code CN=system:node:<name>,
 * O=system:nodes}; the only extension allowed is subjectAltName with the node name or IP addresses.
 */
public final class CsrCheck {
    public static final int MAX_CSR_BYTES = 8 * 1024;
    private static final Provider BC = new BouncyCastleProvider();

    private CsrCheck() {
    }

    public static JcaPKCS10CertificationRequest check(byte[] der, String nodeName) throws Refusal {
        if (der.length == 0 || der.length > MAX_CSR_BYTES) {
            throw JoinRefusal.invalid("kubelet_csr must be 1.." + MAX_CSR_BYTES + " bytes of DER, got " + der.length);
        }
        JcaPKCS10CertificationRequest csr = parse(der);
        checkSignatureAndKey(csr);
        checkSubject(csr.getSubject().getRDNs(), nodeName);
        for (Attribute attribute : csr.getAttributes()) {
            if (!PKCSObjectIdentifiers.pkcs_9_at_extensionRequest.equals(attribute.getAttrType())) {
                throw JoinRefusal.invalid("kubelet_csr carries attribute " + attribute.getAttrType() + "; only extensionRequest is allowed");
            }
        }
        checkExtensions(csr.getRequestedExtensions(), nodeName);
        return csr;
    }

    private static JcaPKCS10CertificationRequest parse(byte[] der) throws Refusal {
        try {
            JcaPKCS10CertificationRequest csr = new JcaPKCS10CertificationRequest(der);
            // Re-encoding must give the input back: no trailing bytes, no BER a CA might read differently.
            if (!Arrays.equals(csr.getEncoded(), der)) {
                throw JoinRefusal.invalid("kubelet_csr is not a single DER-encoded PKCS#10 request");
            }
            return csr;
        } catch (IOException | RuntimeException e) {
            throw JoinRefusal.invalid("kubelet_csr is not a PKCS#10 request");
        }
    }

    private static void checkSignatureAndKey(JcaPKCS10CertificationRequest csr) throws Refusal {
        PublicKey key;
        boolean valid;
        try {
            // BC as an explicit provider object (not registered globally): the JDK's KeyFactory lookup
            // by OID fails for EC keys.
            key = csr.setProvider(BC).getPublicKey();
            valid = csr.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider(BC)
                    .build(csr.getSubjectPublicKeyInfo()));
        } catch (Exception e) {
            // BC and the JCA signal unknown algorithms and bad encodings with a zoo of checked and unchecked exceptions.
            throw JoinRefusal.invalid("kubelet_csr has an unusable public key or signature algorithm");
        }
        if (!valid) {
            throw JoinRefusal.invalid("kubelet_csr signature does not verify with its own public key");
        }
        boolean ec = X9ObjectIdentifiers.id_ecPublicKey.equals(csr.getSubjectPublicKeyInfo().getAlgorithm().getAlgorithm());
        boolean rsa = key instanceof RSAPublicKey r && r.getModulus().bitLength() >= 2048;
        if (!ec && !rsa) {
            throw JoinRefusal.invalid("kubelet_csr key must be EC or RSA of at least 2048 bits");
        }
    }

    private static void checkSubject(RDN[] rdns, String nodeName) throws Refusal {
        String expected = "subject must be exactly CN=system:node:" + nodeName + ", O=system:nodes";
        if (rdns.length != 2) {
            throw JoinRefusal.invalid("kubelet_csr " + expected);
        }
        String cn = null;
        String o = null;
        for (RDN rdn : rdns) {
            if (rdn.isMultiValued()) {
                throw JoinRefusal.invalid("kubelet_csr " + expected + " (no multi-valued RDNs)");
            }
            AttributeTypeAndValue atv = rdn.getFirst();
            ASN1ObjectIdentifier type = atv.getType();
            String value = IETFUtils.valueToString(atv.getValue());
            if (BCStyle.CN.equals(type) && cn == null) {
                cn = value;
            } else if (BCStyle.O.equals(type) && o == null) {
                o = value;
            } else {
                throw JoinRefusal.invalid("kubelet_csr " + expected);
            }
        }
        if (!("system:node:" + nodeName).equals(cn) || !"system:nodes".equals(o)) {
            throw JoinRefusal.invalid("kubelet_csr " + expected);
        }
    }

    private static void checkExtensions(Extensions extensions, String nodeName) throws Refusal {
        if (extensions == null) {
            return;
        }
        for (ASN1ObjectIdentifier oid : extensions.getExtensionOIDs()) {
            if (!Extension.subjectAlternativeName.equals(oid)) {
                throw JoinRefusal.invalid("kubelet_csr requests extension " + oid + "; only subjectAltName is allowed");
            }
        }
        GeneralNames names;
        try {
            names = GeneralNames.getInstance(extensions.getExtensionParsedValue(Extension.subjectAlternativeName));
        } catch (RuntimeException e) {
            throw JoinRefusal.invalid("kubelet_csr subjectAltName is malformed");
        }
        for (GeneralName name : names.getNames()) {
            boolean ip = name.getTagNo() == GeneralName.iPAddress;
            boolean ownName = name.getTagNo() == GeneralName.dNSName && nodeName.equals(name.getName().toString());
            if (!ip && !ownName) {
                throw JoinRefusal.invalid("kubelet_csr subjectAltName may hold only IP addresses and the node name");
            }
        }
    }
}
