package dev.sextant.proto.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class KeyServiceGrpc {

  private KeyServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "sextant.v1.KeyService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetDataKeyRequest,
      dev.sextant.proto.v1.GetDataKeyResponse> getGetDataKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetDataKey",
      requestType = dev.sextant.proto.v1.GetDataKeyRequest.class,
      responseType = dev.sextant.proto.v1.GetDataKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetDataKeyRequest,
      dev.sextant.proto.v1.GetDataKeyResponse> getGetDataKeyMethod() {
    io.grpc.MethodDescriptor<dev.sextant.proto.v1.GetDataKeyRequest, dev.sextant.proto.v1.GetDataKeyResponse> getGetDataKeyMethod;
    if ((getGetDataKeyMethod = KeyServiceGrpc.getGetDataKeyMethod) == null) {
      synchronized (KeyServiceGrpc.class) {
        if ((getGetDataKeyMethod = KeyServiceGrpc.getGetDataKeyMethod) == null) {
          KeyServiceGrpc.getGetDataKeyMethod = getGetDataKeyMethod =
              io.grpc.MethodDescriptor.<dev.sextant.proto.v1.GetDataKeyRequest, dev.sextant.proto.v1.GetDataKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetDataKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.GetDataKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.GetDataKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new KeyServiceMethodDescriptorSupplier("GetDataKey"))
              .build();
        }
      }
    }
    return getGetDataKeyMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static KeyServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KeyServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KeyServiceStub>() {
        @java.lang.Override
        public KeyServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KeyServiceStub(channel, callOptions);
        }
      };
    return KeyServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static KeyServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KeyServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KeyServiceBlockingV2Stub>() {
        @java.lang.Override
        public KeyServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KeyServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return KeyServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static KeyServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KeyServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KeyServiceBlockingStub>() {
        @java.lang.Override
        public KeyServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KeyServiceBlockingStub(channel, callOptions);
        }
      };
    return KeyServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static KeyServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<KeyServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<KeyServiceFutureStub>() {
        @java.lang.Override
        public KeyServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new KeyServiceFutureStub(channel, callOptions);
        }
      };
    return KeyServiceFutureStub.newStub(factory, channel);
  }

  /**
   */
  public interface AsyncService {

    /**
     * <pre>
     * HKDF-SHA256(master secret, salt, info = "key-" + data_key_id), `length` bytes.
     * </pre>
     */
    default void getDataKey(dev.sextant.proto.v1.GetDataKeyRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetDataKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetDataKeyMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service KeyService.
   */
  public static abstract class KeyServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return KeyServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service KeyService.
   */
  public static final class KeyServiceStub
      extends io.grpc.stub.AbstractAsyncStub<KeyServiceStub> {
    private KeyServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KeyServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KeyServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * HKDF-SHA256(master secret, salt, info = "key-" + data_key_id), `length` bytes.
     * </pre>
     */
    public void getDataKey(dev.sextant.proto.v1.GetDataKeyRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetDataKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetDataKeyMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service KeyService.
   */
  public static final class KeyServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<KeyServiceBlockingV2Stub> {
    private KeyServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KeyServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KeyServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * HKDF-SHA256(master secret, salt, info = "key-" + data_key_id), `length` bytes.
     * </pre>
     */
    public dev.sextant.proto.v1.GetDataKeyResponse getDataKey(dev.sextant.proto.v1.GetDataKeyRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetDataKeyMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service KeyService.
   */
  public static final class KeyServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<KeyServiceBlockingStub> {
    private KeyServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KeyServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KeyServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * HKDF-SHA256(master secret, salt, info = "key-" + data_key_id), `length` bytes.
     * </pre>
     */
    public dev.sextant.proto.v1.GetDataKeyResponse getDataKey(dev.sextant.proto.v1.GetDataKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetDataKeyMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service KeyService.
   */
  public static final class KeyServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<KeyServiceFutureStub> {
    private KeyServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected KeyServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new KeyServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * HKDF-SHA256(master secret, salt, info = "key-" + data_key_id), `length` bytes.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.sextant.proto.v1.GetDataKeyResponse> getDataKey(
        dev.sextant.proto.v1.GetDataKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetDataKeyMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GET_DATA_KEY = 0;

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
        case METHODID_GET_DATA_KEY:
          serviceImpl.getDataKey((dev.sextant.proto.v1.GetDataKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.sextant.proto.v1.GetDataKeyResponse>) responseObserver);
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
          getGetDataKeyMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.sextant.proto.v1.GetDataKeyRequest,
              dev.sextant.proto.v1.GetDataKeyResponse>(
                service, METHODID_GET_DATA_KEY)))
        .build();
  }

  private static abstract class KeyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    KeyServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.sextant.proto.v1.Kms.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("KeyService");
    }
  }

  private static final class KeyServiceFileDescriptorSupplier
      extends KeyServiceBaseDescriptorSupplier {
    KeyServiceFileDescriptorSupplier() {}
  }

  private static final class KeyServiceMethodDescriptorSupplier
      extends KeyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    KeyServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (KeyServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new KeyServiceFileDescriptorSupplier())
              .addMethod(getGetDataKeyMethod())
              .build();
        }
      }
    }
    return result;
  }
}
