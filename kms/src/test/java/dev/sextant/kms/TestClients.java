package dev.sextant.kms;

import dev.sextant.grpcsupport.unix.UnixSocketChannel;
import dev.sextant.proto.v1.KeyServiceGrpc;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** A real gRPC client stub on the KMS's Unix socket, as the join service connects (the test runs as a peer uid). */
@Factory
class TestClients {

    @Singleton
    @Bean(preDestroy = "close")
    UnixSocketChannel kmsSocket(KmsSocketServer server) {
        return new UnixSocketChannel(server.socket());
    }

    @Bean
    KeyServiceGrpc.KeyServiceBlockingStub keyService(UnixSocketChannel socket) {
        return KeyServiceGrpc.newBlockingStub(socket.channel());
    }
}
