package dev.sextant.proto.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
 * quote was verified in the handshake before any method runs.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class JoinServiceGrpc {

  private JoinServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "sextant.v1.JoinService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueJoinTicketRequest,
      dev.sextant.proto.v1.IssueJoinTicketResponse> getIssueJoinTicketMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "IssueJoinTicket",
      requestType = dev.sextant.proto.v1.IssueJoinTicketRequest.class,
      responseType = dev.sextant.proto.v1.IssueJoinTicketResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueJoinTicketRequest,
      dev.sextant.proto.v1.IssueJoinTicketResponse> getIssueJoinTicketMethod() {
    io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueJoinTicketRequest, dev.sextant.proto.v1.IssueJoinTicketResponse> getIssueJoinTicketMethod;
    if ((getIssueJoinTicketMethod = JoinServiceGrpc.getIssueJoinTicketMethod) == null) {
      synchronized (JoinServiceGrpc.class) {
        if ((getIssueJoinTicketMethod = JoinServiceGrpc.getIssueJoinTicketMethod) == null) {
          JoinServiceGrpc.getIssueJoinTicketMethod = getIssueJoinTicketMethod =
              io.grpc.MethodDescriptor.<dev.sextant.proto.v1.IssueJoinTicketRequest, dev.sextant.proto.v1.IssueJoinTicketResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "IssueJoinTicket"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.IssueJoinTicketRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.IssueJoinTicketResponse.getDefaultInstance()))
              .setSchemaDescriptor(new JoinServiceMethodDescriptorSupplier("IssueJoinTicket"))
              .build();
        }
      }
    }
    return getIssueJoinTicketMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueRejoinTicketRequest,
      dev.sextant.proto.v1.IssueRejoinTicketResponse> getIssueRejoinTicketMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "IssueRejoinTicket",
      requestType = dev.sextant.proto.v1.IssueRejoinTicketRequest.class,
      responseType = dev.sextant.proto.v1.IssueRejoinTicketResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueRejoinTicketRequest,
      dev.sextant.proto.v1.IssueRejoinTicketResponse> getIssueRejoinTicketMethod() {
    io.grpc.MethodDescriptor<dev.sextant.proto.v1.IssueRejoinTicketRequest, dev.sextant.proto.v1.IssueRejoinTicketResponse> getIssueRejoinTicketMethod;
    if ((getIssueRejoinTicketMethod = JoinServiceGrpc.getIssueRejoinTicketMethod) == null) {
      synchronized (JoinServiceGrpc.class) {
        if ((getIssueRejoinTicketMethod = JoinServiceGrpc.getIssueRejoinTicketMethod) == null) {
          JoinServiceGrpc.getIssueRejoinTicketMethod = getIssueRejoinTicketMethod =
              io.grpc.MethodDescriptor.<dev.sextant.proto.v1.IssueRejoinTicketRequest, dev.sextant.proto.v1.IssueRejoinTicketResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "IssueRejoinTicket"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.IssueRejoinTicketRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.sextant.proto.v1.IssueRejoinTicketResponse.getDefaultInstance()))
              .setSchemaDescriptor(new JoinServiceMethodDescriptorSupplier("IssueRejoinTicket"))
              .build();
        }
      }
    }
    return getIssueRejoinTicketMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static JoinServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<JoinServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<JoinServiceStub>() {
        @java.lang.Override
        public JoinServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new JoinServiceStub(channel, callOptions);
        }
      };
    return JoinServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static JoinServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<JoinServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<JoinServiceBlockingV2Stub>() {
        @java.lang.Override
        public JoinServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new JoinServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return JoinServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static JoinServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<JoinServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<JoinServiceBlockingStub>() {
        @java.lang.Override
        public JoinServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new JoinServiceBlockingStub(channel, callOptions);
        }
      };
    return JoinServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static JoinServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<JoinServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<JoinServiceFutureStub>() {
        @java.lang.Override
        public JoinServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new JoinServiceFutureStub(channel, callOptions);
        }
      };
    return JoinServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public interface AsyncService {

    /**
     */
    default void issueJoinTicket(dev.sextant.proto.v1.IssueJoinTicketRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueJoinTicketResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIssueJoinTicketMethod(), responseObserver);
    }

    /**
     */
    default void issueRejoinTicket(dev.sextant.proto.v1.IssueRejoinTicketRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueRejoinTicketResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIssueRejoinTicketMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service JoinService.
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public static abstract class JoinServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return JoinServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service JoinService.
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public static final class JoinServiceStub
      extends io.grpc.stub.AbstractAsyncStub<JoinServiceStub> {
    private JoinServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected JoinServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new JoinServiceStub(channel, callOptions);
    }

    /**
     */
    public void issueJoinTicket(dev.sextant.proto.v1.IssueJoinTicketRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueJoinTicketResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIssueJoinTicketMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void issueRejoinTicket(dev.sextant.proto.v1.IssueRejoinTicketRequest request,
        io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueRejoinTicketResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIssueRejoinTicketMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service JoinService.
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public static final class JoinServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<JoinServiceBlockingV2Stub> {
    private JoinServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected JoinServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new JoinServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     */
    public dev.sextant.proto.v1.IssueJoinTicketResponse issueJoinTicket(dev.sextant.proto.v1.IssueJoinTicketRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getIssueJoinTicketMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.sextant.proto.v1.IssueRejoinTicketResponse issueRejoinTicket(dev.sextant.proto.v1.IssueRejoinTicketRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getIssueRejoinTicketMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service JoinService.
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public static final class JoinServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<JoinServiceBlockingStub> {
    private JoinServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected JoinServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new JoinServiceBlockingStub(channel, callOptions);
    }

    /**
     */
    public dev.sextant.proto.v1.IssueJoinTicketResponse issueJoinTicket(dev.sextant.proto.v1.IssueJoinTicketRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIssueJoinTicketMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.sextant.proto.v1.IssueRejoinTicketResponse issueRejoinTicket(dev.sextant.proto.v1.IssueRejoinTicketRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIssueRejoinTicketMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service JoinService.
   * <pre>
   * Served over client-attested aTLS (mutual when the node asks for it): the caller's TPM
   * quote was verified in the handshake before any method runs.
   * </pre>
   */
  public static final class JoinServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<JoinServiceFutureStub> {
    private JoinServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected JoinServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new JoinServiceFutureStub(channel, callOptions);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.sextant.proto.v1.IssueJoinTicketResponse> issueJoinTicket(
        dev.sextant.proto.v1.IssueJoinTicketRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIssueJoinTicketMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.sextant.proto.v1.IssueRejoinTicketResponse> issueRejoinTicket(
        dev.sextant.proto.v1.IssueRejoinTicketRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIssueRejoinTicketMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_ISSUE_JOIN_TICKET = 0;
  private static final int METHODID_ISSUE_REJOIN_TICKET = 1;

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
        case METHODID_ISSUE_JOIN_TICKET:
          serviceImpl.issueJoinTicket((dev.sextant.proto.v1.IssueJoinTicketRequest) request,
              (io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueJoinTicketResponse>) responseObserver);
          break;
        case METHODID_ISSUE_REJOIN_TICKET:
          serviceImpl.issueRejoinTicket((dev.sextant.proto.v1.IssueRejoinTicketRequest) request,
              (io.grpc.stub.StreamObserver<dev.sextant.proto.v1.IssueRejoinTicketResponse>) responseObserver);
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
          getIssueJoinTicketMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.sextant.proto.v1.IssueJoinTicketRequest,
              dev.sextant.proto.v1.IssueJoinTicketResponse>(
                service, METHODID_ISSUE_JOIN_TICKET)))
        .addMethod(
          getIssueRejoinTicketMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.sextant.proto.v1.IssueRejoinTicketRequest,
              dev.sextant.proto.v1.IssueRejoinTicketResponse>(
                service, METHODID_ISSUE_REJOIN_TICKET)))
        .build();
  }

  private static abstract class JoinServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    JoinServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.sextant.proto.v1.Join.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("JoinService");
    }
  }

  private static final class JoinServiceFileDescriptorSupplier
      extends JoinServiceBaseDescriptorSupplier {
    JoinServiceFileDescriptorSupplier() {}
  }

  private static final class JoinServiceMethodDescriptorSupplier
      extends JoinServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    JoinServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (JoinServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new JoinServiceFileDescriptorSupplier())
              .addMethod(getIssueJoinTicketMethod())
              .addMethod(getIssueRejoinTicketMethod())
              .build();
        }
      }
    }
    return result;
  }
}
