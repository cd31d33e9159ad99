package dev.sextant.joinapi;

import dev.sextant.attestation.digest.Sha256;
import dev.sextant.joinapi.identity.AtlsCallerIdentity;
import dev.sextant.joinapi.identity.AttestedCaller;
import dev.sextant.joinapi.identity.CallerIdentity;
import dev.sextant.proto.v1.JoinServiceGrpc;
import dev.sextant.serviceconfig.JoinServiceConfig;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.MetadataUtils;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Plain-gRPC stand-in for the aTLS identity: the client names its AK in a header and a server
 * interceptor puts it where the real one puts the verified state. Active only with aTLS off, so it
 * can never exist in a production context.
 */
@Singleton
@Replaces(AtlsCallerIdentity.class)
@Requires(property = JoinServiceConfig.ATLS_ENABLED, value = "false")
public class TestCaller implements CallerIdentity, ServerInterceptor {
    static final Metadata.Key<String> HEADER = Metadata.Key.of("x-test-ak-name", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> IMAGE_HEADER = Metadata.Key.of("x-test-image-version", Metadata.ASCII_STRING_MARSHALLER);
    /** The image a test caller's quote matched unless it names one: a policy of one image without a version. */
    public static final String UNVERSIONED = "unversioned";
    private static final Context.Key<AttestedCaller> KEY = Context.key("test-ak-name");

    @Override
    public Optional<AttestedCaller> current() {
        return Optional.ofNullable(KEY.get());
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String hex = headers.get(HEADER);
        if (hex == null) {
            return next.startCall(call, headers);
        }
        String image = headers.get(IMAGE_HEADER);
        AttestedCaller caller = new AttestedCaller(HexFormat.of().parseHex(hex), image == null ? UNVERSIONED : image);
        return Contexts.interceptCall(Context.current().withValue(KEY, caller), call, headers, next);
    }

    /** A stub that calls as the machine with this AK name (null: an unattested caller). */
    public static JoinServiceGrpc.JoinServiceBlockingStub as(ManagedChannel channel, byte[] akName) {
        return as(channel, akName, UNVERSIONED);
    }

    /** A stub that calls as the machine with this AK name whose quote matched image {@code imageVersion}. */
    public static JoinServiceGrpc.JoinServiceBlockingStub as(ManagedChannel channel, byte[] akName, String imageVersion) {
        JoinServiceGrpc.JoinServiceBlockingStub stub = JoinServiceGrpc.newBlockingStub(channel);
        if (akName == null) {
            return stub;
        }
        Metadata headers = new Metadata();
        headers.put(HEADER, HexFormat.of().formatHex(akName));
        headers.put(IMAGE_HEADER, imageVersion);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    public static byte[] ak(String machine) {
        byte[] name = new byte[34];
        name[1] = 0x0b; // TPM_ALG_SHA256 nameAlg, as a real AK name starts
        System.arraycopy(Sha256.of(machine.getBytes()), 0, name, 2, 32);
        return name;
    }
}
