package dev.sextant.nodeboot.joinclient;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.sextant.proto.v1.IssueRejoinTicketResponse;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@DisplayName("A rejoin ticket is the disk key, and the node reads nothing else from it")
class RejoinTicketTest {
    private static final byte[] DISK_KEY = filled(0x5d);

    @Test
    @DisplayName("a ticket from a join service that still sends fields 2-4 (measurement secret, salt, discovery key)"
            + " passes on its disk key alone; the rest stays unknown fields the node has no accessor for")
    void extraFieldsOfAnOlderServiceAreIgnored() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(wire);
        out.writeByteArray(1, DISK_KEY);
        out.writeByteArray(2, filled(0x4d));
        out.writeByteArray(3, filled(0x53));
        out.writeByteArray(4, filled(0x44));
        out.flush();

        IssueRejoinTicketResponse ticket = IssueRejoinTicketResponse.parseFrom(wire.toByteArray());

        assertEquals(List.of(), TicketCheck.problems(ticket));
        assertArrayEquals(DISK_KEY, ticket.getStateDiskKey().toByteArray());
        assertTrue(ticket.getUnknownFields().hasField(2) && ticket.getUnknownFields().hasField(3)
                && ticket.getUnknownFields().hasField(4));
    }

    @Test
    @DisplayName("a disk key that is not 32 bytes is refused, naming the field and its size, never its content")
    void shortDiskKeyIsRefused() {
        IssueRejoinTicketResponse ticket = IssueRejoinTicketResponse.newBuilder()
                .setStateDiskKey(ByteString.copyFrom(Arrays.copyOf(DISK_KEY, 16))).build();

        assertEquals(List.of("state_disk_key has 16 bytes, not 32"), TicketCheck.problems(ticket));
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
