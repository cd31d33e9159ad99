package dev.sextant.nodeboot;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import dev.sextant.grpcsupport.logging.ServiceLogging;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * The bootstrapper logs like every service, and to its own file too: that file is returned to an
 * authenticated operator after a failed init when the node has no journalctl. Keep its path in step
 * with {@code sextant.init.log-file} (application.yml).
 */
public final class NodeLogging extends ServiceLogging {
    static final String DEFAULT_FILE = "/tmp/sextant-node-boot.log";
    private static final String FILE_PATTERN = "%d{ISO8601} %-5level %logger{24} - %msg%n";

    private final String file;

    public NodeLogging() {
        this(ServiceLogging::onClassPath, Optional.ofNullable(System.getenv("SEXTANT_LOG_FILE")).orElse(DEFAULT_FILE));
    }

    NodeLogging(Predicate<String> onClassPath, String file) {
        super(onClassPath);
        this.file = file;
    }

    @Override
    protected void addAppenders(LoggerContext context, Logger root) {
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setFile(file);
        root.addAppender(started(context, appender, "FILE", FILE_PATTERN));
    }
}
