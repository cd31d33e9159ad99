package dev.sextant.kms;

import dev.sextant.proto.v1.KeyServiceGrpc;
import io.grpc.ManagedChannel;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.grpc.annotation.GrpcChannel;
import io.micronaut.grpc.server.GrpcServerChannel;

/** A real gRPC client stub wired to the embedded server's (random) port. */
@Factory
class TestClients {

    @Bean
    KeyServiceGrpc.KeyServiceBlockingStub keyService(@GrpcChannel(GrpcServerChannel.NAME) ManagedChannel channel) {
        return KeyServiceGrpc.newBlockingStub(channel);
    }
}
