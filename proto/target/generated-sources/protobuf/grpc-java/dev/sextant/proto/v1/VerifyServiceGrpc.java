package dev.sextant.proto.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class VerifyServiceGrpc {

  private VerifyServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "sextant.v1.VerifyService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetAttestationRequest,
      dev.sextant.proto.v1.GetAttestationResponse> getGetAttestationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAttestation",
      requestType = dev.sextant.proto.v1.GetAttestationRequest.class,
      responseType = dev.sextant.proto.v1.GetAttestationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetAttestationRequest,
      dev.sextant.proto.v1.GetAttestationResponse> getGetAttestationMethod() {
    io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetAttestationRequest, dev.sextant.proto.v1.GetAttestationResponse> getGetAttestationMethod;
    if ((getGetAttestationMethod = VerifyServiceGrpc.getGetAttestationMethod) == null) {
      synchronized (VerifyServiceGrpc.class) {
        if ((getGetAttestationMethod = VerifyServiceGrpc.getGetAttestationMethod) == null) {
          VerifyServiceGrpc.getGetAttestationMethod = getGetAttestationMethod =
              io.grpc.MethodDescriptor.<dev.sextant.proto.v1.GetAttestationRequest, dev.sextant.proto.v1.GetAttestationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAttestation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.GetAttestationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.GetAttestationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new VerifyServiceMethodDescriptorSupplier("GetAttestation"))
              .build();
        }
      }
    }
    return getGetAttestationMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static VerifyServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<VerifyServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<VerifyServiceStub>() {
        @java.lang.Override
        public VerifyServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new VerifyServiceStub(channel, callOptions);
        }
      };
    return VerifyServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static VerifyServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<VerifyServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<VerifyServiceBlockingV2Stub>() {
        @java.lang.Override
        public VerifyServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new VerifyServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return VerifyServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static VerifyServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<VerifyServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<VerifyServiceBlockingStub>() {
        @java.lang.Override
        public VerifyServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new VerifyServiceBlockingStub(channel, callOptions);
        }
      };
    return VerifyServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static VerifyServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<VerifyServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<VerifyServiceFutureStub>() {
        @java.lang.Override
        public VerifyServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new VerifyServiceFutureStub(channel, callOptions);
        }
      };
    return VerifyServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public interface AsyncService {

    /**
     */
    default void getAttestation(dev.sextant.proto.v1.GetAttestationRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetAttestationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAttestationMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service VerifyService.
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public static abstract class VerifyServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return VerifyServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service VerifyService.
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public static final class VerifyServiceStub
      extends io.grpc.stub.AbstractAsyncStub<VerifyServiceStub> {
    private VerifyServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected VerifyServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new VerifyServiceStub(channel, callOptions);
    }

    /**
     */
    public void getAttestation(dev.sextant.proto.v1.GetAttestationRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetAttestationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAttestationMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service VerifyService.
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public static final class VerifyServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<VerifyServiceBlockingV2Stub> {
    private VerifyServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected VerifyServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new VerifyServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     */
    public dev.sextant.proto.v1.GetAttestationResponse getAttestation(dev.sextant.proto.v1.GetAttestationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetAttestationMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service VerifyService.
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public static final class VerifyServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<VerifyServiceBlockingStub> {
    private VerifyServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected VerifyServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new VerifyServiceBlockingStub(channel, callOptions);
    }

    /**
     */
    public dev.sextant.proto.v1.GetAttestationResponse getAttestation(dev.sextant.proto.v1.GetAttestationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAttestationMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service VerifyService.
   * <pre>
   * Plain gRPC: the document itself carries the proof, bound to the caller's nonce.
   * </pre>
   */
  public static final class VerifyServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<VerifyServiceFutureStub> {
    private VerifyServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected VerifyServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new VerifyServiceFutureStub(channel, callOptions);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.sextant.proto.v1.GetAttestationResponse> getAttestation(
        dev.sextant.proto.v1.GetAttestationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAttestationMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GET_ATTESTATION = 0;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_GET_ATTESTATION:
          serviceImpl.getAttestation((dev.sextant.proto.v1.GetAttestationRequest) request,
              (io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetAttestationResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getGetAttestationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.sextant.proto.v1.GetAttestationRequest,
              dev.sextant.proto.v1.GetAttestationResponse>(
                service, METHODID_GET_ATTESTATION)))
        .build();
  }

  private static abstract class VerifyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    VerifyServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.sextant.proto.v1.Verify.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("VerifyService");
    }
  }

  private static final class VerifyServiceFileDescriptorSupplier
      extends VerifyServiceBaseDescriptorSupplier {
    VerifyServiceFileDescriptorSupplier() {}
  }

  private static final class VerifyServiceMethodDescriptorSupplier
      extends VerifyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    VerifyServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (VerifyServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new VerifyServiceFileDescriptorSupplier())
              .addMethod(getGetAttestationMethod())
              .build();
        }
      }
    }
    return result;
  }
}
