package dev.sextant.proto.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class InitServiceGrpc {

  private InitServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "sextant.v1.InitService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.sextant.proto.v1.InitRequest,
      dev.sextant.proto.v1.InitResponse> getInitMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Init",
      requestType = dev.sextant.proto.v1.InitRequest.class,
      responseType = dev.sextant.proto.v1.InitResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.sextant.proto.v1.InitRequest,
      dev.sextant.proto.v1.InitResponse> getInitMethod() {
    io.grpc.MethodDescriptor<dev.sextant.proto.v1.InitRequest, dev.sextant.proto.v1.InitResponse> getInitMethod;
    if ((getInitMethod = InitServiceGrpc.getInitMethod) == null) {
      synchronized (InitServiceGrpc.class) {
        if ((getInitMethod = InitServiceGrpc.getInitMethod) == null) {
          InitServiceGrpc.getInitMethod = getInitMethod =
              io.grpc.MethodDescriptor.<dev.sextant.proto.v1.InitRequest, dev.sextant.proto.v1.InitResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Init"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.InitRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.InitResponse.getDefaultInstance()))
              .setSchemaDescriptor(new InitServiceMethodDescriptorSupplier("Init"))
              .build();
        }
      }
    }
    return getInitMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static InitServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<InitServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<InitServiceStub>() {
        @java.lang.Override
        public InitServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new InitServiceStub(channel, callOptions);
        }
      };
    return InitServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static InitServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<InitServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<InitServiceBlockingV2Stub>() {
        @java.lang.Override
        public InitServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new InitServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return InitServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static InitServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<InitServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<InitServiceBlockingStub>() {
        @java.lang.Override
        public InitServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new InitServiceBlockingStub(channel, callOptions);
        }
      };
    return InitServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static InitServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<InitServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<InitServiceFutureStub>() {
        @java.lang.Override
        public InitServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new InitServiceFutureStub(channel, callOptions);
        }
      };
    return InitServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public interface AsyncService {

    /**
     */
    default void init(dev.sextant.proto.v1.InitRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.InitResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getInitMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service InitService.
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public static abstract class InitServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return InitServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service InitService.
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public static final class InitServiceStub
      extends io.grpc.stub.AbstractAsyncStub<InitServiceStub> {
    private InitServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected InitServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new InitServiceStub(channel, callOptions);
    }

    /**
     */
    public void init(dev.sextant.proto.v1.InitRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.InitResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getInitMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service InitService.
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public static final class InitServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<InitServiceBlockingV2Stub> {
    private InitServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected InitServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new InitServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.sextant.proto.v1.InitResponse>
        init(dev.sextant.proto.v1.InitRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getInitMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service InitService.
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public static final class InitServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<InitServiceBlockingStub> {
    private InitServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected InitServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new InitServiceBlockingStub(channel, callOptions);
    }

    /**
     */
    public java.util.Iterator<dev.sextant.proto.v1.InitResponse> init(
        dev.sextant.proto.v1.InitRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getInitMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service InitService.
   * <pre>
   * Served by the first node over server-attested aTLS; the init secret authenticates the caller.
   * </pre>
   */
  public static final class InitServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<InitServiceFutureStub> {
    private InitServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected InitServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new InitServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_INIT = 0;

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
        case METHODID_INIT:
          serviceImpl.init((dev.sextant.proto.v1.InitRequest) request,
              (io.grpc.stub.StreamObserver<dev.sextant.proto.v1.InitResponse>) responseObserver);
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
          getInitMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.sextant.proto.v1.InitRequest,
              dev.sextant.proto.v1.InitResponse>(
                service, METHODID_INIT)))
        .build();
  }

  private static abstract class InitServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    InitServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.sextant.proto.v1.Init.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("InitService");
    }
  }

  private static final class InitServiceFileDescriptorSupplier
      extends InitServiceBaseDescriptorSupplier {
    InitServiceFileDescriptorSupplier() {}
  }

  private static final class InitServiceMethodDescriptorSupplier
      extends InitServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    InitServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (InitServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new InitServiceFileDescriptorSupplier())
              .addMethod(getInitMethod())
              .build();
        }
      }
    }
    return result;
  }
}
