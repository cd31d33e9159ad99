/**
 * The etcd CA, derived from the KMS data key {@code etcd-ca} so that every control plane holds the same
 * CA without storing it ({@link dev.sextant.etcd.pki.EtcdCa}), the member and client certificates it
 * issues, and the PEM files etcd and the client read.
 */
package dev.sextant.etcd.pki;
