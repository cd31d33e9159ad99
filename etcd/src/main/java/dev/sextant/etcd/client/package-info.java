/**
 * The cluster store's etcd client over grpc-java and Netty with mutual TLS: get, put, the create-all
 * transaction of a first join, prefix counts, membership and member status
 * ({@link dev.sextant.etcd.client.EtcdClient}).
 */
package dev.sextant.etcd.client;
