package dev.sextant.tpm.command;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Optional;

/**
 * NV commands of a {@link TpmClient}. Reads and writes are authorized by the index itself with
 * the empty password (authread/authwrite), which both the EK certificate index and ours allow;
 * {@link #writeUnderPolicy} writes an index whose writes only a policy session authorizes.
 */
public final class NvCommands {
    /** Below every TPM's TPM_PT_NV_BUFFER_MAX (1024 is the PC Client minimum), so no query needed. */
    static final int CHUNK = 1024;

    private final TpmClient client;

    NvCommands(TpmClient client) {
        this.client = client;
    }

    /** TPM2_NV_ReadPublic (Part 3, §31.6); fails with TPM_RC_HANDLE when the index is not defined. */
    public NvPublic readPublic(int index) throws TpmException {
        Command c = Command.of(TpmCc.NV_READ_PUBLIC).handle(index);
        return client.send(c, 0, r -> {
            var p = r.slice(r.u16("nvPublic.size"), "nvPublic");
            int nvIndex = (int) p.u32("nvIndex");
            int nameAlg = p.u16("nameAlg");
            int attributes = (int) p.u32("attributes");
            byte[] policy = p.sized(64, "authPolicy");
            int dataSize = p.u16("dataSize");
            p.expectEnd();
            byte[] name = r.sized(66, "nvName");
            return new NvPublic(nvIndex, nameAlg, attributes, policy, dataSize, name);
        });
    }

    /** {@link #readPublic} of an index that may not be defined: empty on TPM_RC_HANDLE, any other failure thrown. */
    public Optional<NvPublic> findPublic(int index) throws TpmException {
        try {
            return Optional.of(readPublic(index));
        } catch (TpmException e) {
            if (e.is(TpmRc.HANDLE)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The whole content of an index, in chunks of TPM2_NV_Read (Part 3, §31.13). */
    public byte[] read(int index) throws TpmException {
        return client.exclusive(() -> {
            int size = readPublic(index).dataSize();
            ByteArrayOutputStream out = new ByteArrayOutputStream(size);
            for (int offset = 0; offset < size; offset += CHUNK) {
                out.writeBytes(read(index, offset, Math.min(CHUNK, size - offset)));
            }
            return out.toByteArray();
        });
    }

    public byte[] read(int index, int offset, int size) throws TpmException {
        Command c = Command.of(TpmCc.NV_READ).authorizedHandle(index).handle(index);
        c.params().u16(size).u16(offset);
        byte[] data = client.send(c, 0, r -> r.sized(CHUNK, "data"));
        if (data.length != size) {
            throw new TpmException(TpmCc.NV_READ, "asked for " + size + " bytes, got " + data.length, null);
        }
        return data;
    }

    /**
     * TPM2_NV_DefineSpace (Part 3, §31.3) under the owner hierarchy, empty auth and policy,
     * nameAlg SHA-256, ordinary index type.
     */
    public void defineSpace(int index, int attributes, int dataSize) throws TpmException {
        defineSpace(index, attributes, new byte[0], dataSize);
    }

    /** As {@link #defineSpace(int, int, int)}, with {@code authPolicy} (a SHA-256 policy digest, or empty). */
    public void defineSpace(int index, int attributes, byte[] authPolicy, int dataSize) throws TpmException {
        Command c = Command.of(TpmCc.NV_DEFINE_SPACE).authorizedHandle(TpmClient.RH_OWNER);
        c.params().sized(new byte[0]).sized(NvPublic.marshal(index, NvPublic.SHA256, attributes, authPolicy, dataSize));
        client.send(c, 0, r -> null);
    }

    /** TPM2_NV_UndefineSpace (Part 3, §31.4), owner-authorized. */
    public void undefineSpace(int index) throws TpmException {
        Command c = Command.of(TpmCc.NV_UNDEFINE_SPACE).authorizedHandle(TpmClient.RH_OWNER).handle(index);
        client.send(c, 0, r -> null);
    }

    /**
     * One TPM2_NV_Write of {@code data} at offset 0, authorized by the policy session {@code session}
     * (which the caller has brought to the index's authPolicy). The session is flushed either way.
     */
    public void writeUnderPolicy(int index, byte[] data, int session) throws TpmException {
        if (data.length > CHUNK) {
            throw new IllegalArgumentException("one NV_Write holds at most " + CHUNK + " bytes, got " + data.length);
        }
        try {
            Command c = Command.of(TpmCc.NV_WRITE).policyAuthorizedHandle(index, session, client.getRandom(32)).handle(index);
            c.params().sized(data).u16(0);
            client.send(c, 0, r -> null);
        } catch (TpmException e) {
            // A failed command leaves the session loaded; a successful one flushed it (continueSession clear).
            flushQuietly(session);
            throw e;
        }
    }

    private void flushQuietly(int session) {
        try {
            client.flushContext(session);
        } catch (TpmException ignored) {
            // Already gone: nothing to free.
        }
    }

    /** Writes {@code data} from offset 0 in chunks of TPM2_NV_Write (Part 3, §31.7). */
    public void write(int index, byte[] data) throws TpmException {
        client.exclusive(() -> {
            for (int offset = 0; offset < data.length; offset += CHUNK) {
                byte[] chunk = Arrays.copyOfRange(data, offset, Math.min(data.length, offset + CHUNK));
                Command c = Command.of(TpmCc.NV_WRITE).authorizedHandle(index).handle(index);
                c.params().sized(chunk).u16(offset);
                client.send(c, 0, r -> null);
            }
            return null;
        });
    }
}
