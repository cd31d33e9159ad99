package dev.sextant.nodeboot.attacks;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What one class logs while it is open: some refusals are visible only in the victim's log (a
 * ticket refused before the lock leaves nothing else behind), and a row names the refusal.
 */
final class CapturedLog implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    CapturedLog(Class<?> source) {
        this(source.getName());
    }

    /** Everything logged under this logger name ({@code Logger.ROOT_LOGGER_NAME}: the whole JVM). */
    CapturedLog(String loggerName) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    /** The formatted messages logged so far, oldest first. */
    List<String> lines() {
        synchronized (appender) {
            return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    /**
     * The events of this level or above logged so far that mention {@code name} in their thread's name
     * or their message (JGroups names both after the member), as "LEVEL logger [thread]: message".
     * Other test classes' background threads log into the same JVM meanwhile.
     */
    List<String> atLeast(Level level, String name) {
        synchronized (appender) {
            return appender.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(level))
                    .map(e -> e.getLevel() + " " + e.getLoggerName() + " [" + e.getThreadName() + "]: " + e.getFormattedMessage())
                    .filter(line -> line.contains(name)).toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
