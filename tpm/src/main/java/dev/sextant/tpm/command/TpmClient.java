package dev.sextant.tpm.command;

import dev.sextant.attestation.tpmstructures.PcrSelection;
import dev.sextant.attestation.tpmstructures.TpmAlg;
import dev.sextant.attestation.tpmstructures.TpmFormatException;
import dev.sextant.attestation.tpmstructures.TpmReader;
import dev.sextant.tpm.transport.TpmTarget;
import dev.sextant.tpm.transport.TpmTransport;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * In-process TPM 2.0 client over one transport, with password sessions (empty password) and
 * policy sessions without HMAC ({@link PolicyCommands}).
 * Every command holds one lock because a TPM is a single device; {@link #exclusive} holds it across
 * a sequence of commands. PCR, NV and policy commands are grouped in {@link #pcr()}, {@link #nv()} and {@link #policy()} to
 * keep each file small; they share this client's transport and lock.
 */
public final class TpmClient implements AutoCloseable {
    public static final int RH_OWNER = 0x40000001;
    /** TPM_RC_RETRY/YIELDED/TESTING ask the caller to send the same command again. */
    private static final int MAX_RETRIES = 5;

    private final TpmTransport transport;
    private final ReentrantLock lock = new ReentrantLock();
    private final PcrCommands pcr = new PcrCommands(this);
    private final NvCommands nv = new NvCommands(this);
    private final PolicyCommands policy = new PolicyCommands(this);

    public TpmClient(TpmTransport transport) {
        this.transport = transport;
    }

    /** Opens the transport named by a CLI {@code --tpm} argument. */
    public static TpmClient open(TpmTarget target) throws TpmException {
        try {
            return new TpmClient(target.open());
        } catch (IOException e) {
            throw new TpmException(TpmCc.STARTUP, "opening " + target.toArgument() + ": " + e.getMessage(), e);
        }
    }

    /** A sequence of commands that must not interleave with other threads' commands. */
    @FunctionalInterface
    public interface TpmCall<T, E extends Exception> {
        T call() throws E;
    }

    public <T, E extends Exception> T exclusive(TpmCall<T, E> call) throws E {
        lock.lock();
        try {
            return call.call();
        } finally {
            lock.unlock();
        }
    }

    /** TPM2_Startup(CLEAR) (Part 3, §9.3); TPM_RC_INITIALIZE means it already ran, which is fine. */
    public void startup() throws TpmException {
        Command c = Command.of(TpmCc.STARTUP);
        c.params().u16(0x0000);
        try {
            send(c, 0, r -> null);
        } catch (TpmException e) {
            if (!e.is(TpmRc.INITIALIZE)) {
                throw e;
            }
        }
    }

    /** TPM2_GetRandom (Part 3, §16.1), looping because a TPM returns at most one digest size per call. */
    public byte[] getRandom(int count) throws TpmException {
        byte[] out = new byte[count];
        int filled = 0;
        while (filled < count) {
            Command c = Command.of(TpmCc.GET_RANDOM);
            c.params().u16(Math.min(count - filled, 32));
            byte[] chunk = send(c, 0, r -> r.sized(64, "randomBytes"));
            if (chunk.length == 0) {
                throw new TpmException(TpmCc.GET_RANDOM, "the TPM returned no random bytes", null);
            }
            int n = Math.min(chunk.length, count - filled);
            System.arraycopy(chunk, 0, out, filled, n);
            filled += n;
        }
        return out;
    }

    /** Creates (re-derives) the AK from {@code template} in the owner hierarchy. */
    public CreatedPrimary createAk(AkTemplate template) throws TpmException {
        return createPrimary(RH_OWNER, template.tpmtPublic());
    }

    /**
     * TPM2_CreatePrimary (Part 3, §24.1): inSensitive = empty userAuth and data, outsideInfo empty,
     * no creation PCRs. Only outPublic and name are kept from the response.
     */
    public CreatedPrimary createPrimary(int hierarchy, byte[] tpmtPublicTemplate) throws TpmException {
        Command c = Command.of(TpmCc.CREATE_PRIMARY).authorizedHandle(hierarchy);
        c.params().u16(4).u16(0).u16(0)      // TPM2B_SENSITIVE_CREATE { userAuth = {}, data = {} }
                .sized(tpmtPublicTemplate)
                .u16(0)                          // outsideInfo
                .u32(0);                         // creationPCR: empty TPML_PCR_SELECTION
        return send(c, 1, (r, handles) -> {
            byte[] outPublic = r.sized(1024, "outPublic");
            r.sized(4096, "creationData");
            r.sized(64, "creationHash");
            r.u16("creationTicket.tag");
            r.u32("creationTicket.hierarchy");
            r.sized(64, "creationTicket.digest");
            byte[] name = r.sized(66, "name");
            return new CreatedPrimary(handles[0], outPublic, name);
        });
    }

    /** TPM2_FlushContext (Part 3, §28.4): the handle is a parameter, no authorization. */
    public void flushContext(int handle) throws TpmException {
        Command c = Command.of(TpmCc.FLUSH_CONTEXT);
        c.params().u32(handle & 0xFFFFFFFFL);
        send(c, 0, r -> null);
    }

    /**
     * TPM2_Quote (Part 3, §18.4) over all 24 SHA-256 PCRs; inScheme TPM_ALG_NULL so the TPM uses the
     * AK's own scheme (ECDSA- or RSASSA-SHA256, {@link AkTemplate}). The signature is the rest of the
     * parameters.
     */
    public QuoteResult quote(int akHandle, byte[] qualifyingData) throws TpmException {
        Command c = Command.of(TpmCc.QUOTE).authorizedHandle(akHandle);
        c.params().sized(qualifyingData).u16(TpmAlg.NULL);
        PcrSelection.all(TpmAlg.SHA256).marshal(c.params());
        return send(c, 0, r -> {
            byte[] attest = r.sized(4096, "quoted");
            byte[] signature = r.bytes(r.remaining(), "signature");
            return new QuoteResult(attest, signature);
        });
    }

    public PcrCommands pcr() { return pcr; }

    public NvCommands nv() { return nv; }

    public PolicyCommands policy() { return policy; }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            transport.close();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() { return "TpmClient(" + transport + ")"; }

    @FunctionalInterface
    interface Parser<T> {
        T parse(TpmReader params) throws TpmFormatException;
    }

    @FunctionalInterface
    interface HandleParser<T> {
        T parse(TpmReader params, int[] handles) throws TpmFormatException;
    }

    <T> T send(Command c, int handleCount, Parser<T> parser) throws TpmException {
        return send(c, handleCount, (r, h) -> parser.parse(r));
    }

    /** Sends one command under the lock, retrying on the TPM's "try again" warnings. */
    <T> T send(Command c, int handleCount, HandleParser<T> parser) throws TpmException {
        byte[] command = c.marshal();
        String name = c.cc().specName();
        lock.lock();
        try {
            for (int attempt = 1; ; attempt++) {
                byte[] response = transport.transmit(command);
                int rc = Response.responseCode(response, name);
                if (rc == TpmRc.SUCCESS) {
                    Response parsed = Response.parse(response, handleCount, name);
                    int[] handles = new int[handleCount];
                    for (int i = 0; i < handleCount; i++) {
                        handles[i] = parsed.handle(i);
                    }
                    return parser.parse(parsed.params(), handles);
                }
                boolean again = rc == TpmRc.RETRY || rc == TpmRc.YIELDED || rc == TpmRc.TESTING;
                if (!again || attempt >= MAX_RETRIES) {
                    throw new TpmException(c.cc(), rc);
                }
            }
        } catch (IOException e) {
            throw new TpmException(c.cc(), "talking to the TPM: " + e.getMessage(), e);
        } catch (TpmFormatException e) {
            throw new TpmException(c.cc(), "malformed response: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }
}
