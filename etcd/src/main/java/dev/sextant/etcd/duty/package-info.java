/**
 * A duty held by one process at a time among several, under an etcd lease
 * ({@link dev.sextant.etcd.duty.DutyHolder}): the re-attestation duty of docs/re-attestation.md.
 */
package dev.sextant.etcd.duty;
