package dev.sextant.grpcsupport.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.DefaultJoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

import java.util.function.Predicate;

/**
 * The logging of a Sextant service (KMS, join service; node-boot adds its file), set up in code
 * rather than by a {@code logback.xml}: parsing the XML (a SAX parser, Joran's model and its
 * handlers) is a noticeable part of a service's start, more so under emulation, and it runs twice,
 * once when logback starts and once when Micronaut's logging system refreshes at start-up. Each
 * service names its configurator in
 * {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}; logback and Micronaut both
 * take it from there.
 *
 * <p>A {@code logback-test.xml} on the class path or {@code -Dlogback.configurationFile} still
 * wins, as in logback's own order of lookup: then this configurator runs logback's XML
 * configuration itself (Micronaut calls only the first configurator, so deferring would leave
 * logging unconfigured after its refresh).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public class ServiceLogging extends ContextAwareBase implements Configurator {
    static final String CONSOLE_PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n";

    private final Predicate<String> onClassPath;

    public ServiceLogging() {
        this(ServiceLogging::onClassPath);
    }

    /** {@code onClassPath}: whether a resource of that name is on the service's class path. */
    protected ServiceLogging(Predicate<String> onClassPath) {
        this.onClassPath = onClassPath;
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (onClassPath.test("logback-test.xml") || System.getProperty("logback.configurationFile") != null) {
            DefaultJoranConfigurator xml = new DefaultJoranConfigurator();
            xml.setContext(context);
            return xml.configure(context);
        }
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(started(context, new ConsoleAppender<>(), "STDOUT", CONSOLE_PATTERN));
        addAppenders(context, root);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** Whether {@code resource} is on the class path the services' jars were loaded from. */
    protected static boolean onClassPath(String resource) {
        return ServiceLogging.class.getClassLoader().getResource(resource) != null;
    }

    /** Where a service logs besides the console; none by default. */
    protected void addAppenders(LoggerContext context, ch.qos.logback.classic.Logger root) {}

    /** Names, encodes with {@code pattern} and starts {@code appender}. */
    protected static <A extends OutputStreamAppender<ILoggingEvent>> A started(LoggerContext context, A appender,
                                                                            String name, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        appender.setContext(context);
        appender.setName(name);
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
