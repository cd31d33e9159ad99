package dev.sextant.attestation;

/**
 * What a piece of evidence is for. The label is committed into the quote's qualifying data, so
 * a quote made for one context is refused in every other: a node's answer to a verify request
 * cannot be passed off as its aTLS certificate, nor a server's certificate as a client's.
 */
public enum Purpose {
    /** Evidence in the certificate an aTLS server presents. */
    ATLS_SERVER("sextant/atls/v1/server"),
    /** Evidence in the certificate an aTLS client presents. */
    ATLS_CLIENT("sextant/atls/v1/client"),
    /** A quote returned by the node's VerifyService (or made by the operator's CLI) over a nonce. */
    VERIFY("sextant/verify/v1");

    private final String label;

    Purpose(String label) {
        this.label = label;
    }

    public String label() { return label; }

    @Override
    public String toString() { return label; }
}
