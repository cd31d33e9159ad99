/**
 * The cluster store's etcd client over grpc-java and Netty with mutual TLS: get, put, the create-all
 * transaction of a first join, prefix counts, membership and member status
 * ({@link dev.sextant.etcd.client.EtcdClient}); leases, their keep-alive stream
 * ({@link dev.sextant.etcd.client.LeaseKeepAlive}), the create-if-absent under a lease, a deletion watch
 * and fenced writes, which the duty holder ({@code dev.sextant.etcd.duty}) is built on.
 */
package dev.sextant.etcd.client;
