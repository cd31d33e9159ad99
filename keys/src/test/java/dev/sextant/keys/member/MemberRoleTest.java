package dev.sextant.keys.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MemberRole: the role byte of a member certificate")
class MemberRoleTest {
    @Test
    @DisplayName("the role codes are fixed (control plane 1, worker 2): certificates issued before stay readable")
    void codesAreFixed() {
        assertEquals(1, MemberRole.CONTROL_PLANE.code());
        assertEquals(2, MemberRole.WORKER.code());
        for (MemberRole role : MemberRole.values()) {
            assertEquals(role, MemberRole.ofCode(role.code()));
        }
    }

    @Test
    @DisplayName("an unknown role code (0, 3) is refused, not read as some role")
    void unknownCodeIsRefused() {
        assertEquals("member certificate names an unknown role 0",
                assertThrows(IllegalArgumentException.class, () -> MemberRole.ofCode(0)).getMessage());
        assertEquals("member certificate names an unknown role 3",
                assertThrows(IllegalArgumentException.class, () -> MemberRole.ofCode(3)).getMessage());
    }
}
