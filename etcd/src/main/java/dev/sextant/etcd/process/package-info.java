/**
 * One etcd member's command line ({@link dev.sextant.etcd.process.EtcdMemberConfig}), and running it as
 * a child process ({@link dev.sextant.etcd.process.EtcdProcess}).
 */
package dev.sextant.etcd.process;
