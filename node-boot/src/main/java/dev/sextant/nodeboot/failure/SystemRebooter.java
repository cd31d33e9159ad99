package dev.sextant.nodeboot.failure;

import jakarta.inject.Singleton;

import java.io.IOException;

/** systemd's forced reboot: services are not stopped one by one, the node is being discarded anyway. */
@Singleton
public final class SystemRebooter implements Rebooter {
    @Override
    public void reboot() throws IOException {
        new ProcessBuilder("systemctl", "reboot", "--force").inheritIO().start();
    }
}
