/** Membership changes after etcd-manager's rule: learners added, caught up and promoted; members replaced. */
package dev.sextant.etcd.members;
