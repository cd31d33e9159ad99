package dev.sextant.housekeeping.attacks;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.sextant.housekeeping.discovery.GossipNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * Why one member of a test group refused announcements, as its {@link GossipNode} logs it ("ignored an
 * announcement ..." on that member's threads, named {@code ...,<member>}): the victim's own word that a
 * row's forged or stale announcement was turned away, and for what.
 */
final class RefusedAnnouncements extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private final String member;
    private final List<String> reasons = new CopyOnWriteArrayList<>();

    private RefusedAnnouncements(String member) {
        this.member = member;
    }

    /** Listening from now on to what {@code member} refuses, until {@link #close}. */
    static RefusedAnnouncements by(String member) {
        RefusedAnnouncements refusals = new RefusedAnnouncements(member);
        refusals.start();
        gossipLogger().addAppender(refusals);
        return refusals;
    }

    /** Every refusal logged so far, oldest first; a live view. */
    List<String> reasons() {
        return reasons;
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (event.getThreadName().endsWith("," + member) && event.getFormattedMessage().contains("ignored an announcement")) {
            reasons.add(event.getFormattedMessage());
        }
    }

    @Override
    public void close() {
        gossipLogger().detachAppender(this);
        stop();
    }

    private static Logger gossipLogger() {
        return (Logger) LoggerFactory.getLogger(GossipNode.class);
    }
}
