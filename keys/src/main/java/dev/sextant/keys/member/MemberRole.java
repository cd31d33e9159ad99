package dev.sextant.keys.member;

/** What a member certificate lets its holder publish: control planes serve the cluster's shared names. */
public enum MemberRole {
    CONTROL_PLANE(1), WORKER(2);

    private final int code;

    MemberRole(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }

    static MemberRole ofCode(int code) {
        for (MemberRole r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        throw new IllegalArgumentException("member certificate names an unknown role " + code);
    }
}
