package dev.sextant.nodeboot.nodelock;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeLockTest {
    @Test
    @DisplayName("init and join racing on one lock: in 1000 trials exactly one wins each time and only it marks the TPM")
    void exactlyOneWinnerPerRace() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            int initWins = 0;
            for (int trial = 0; trial < 1000; trial++) {
                List<byte[]> marks = new CopyOnWriteArrayList<>();
                NodeLock lock = new NodeLock(marks::add);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<LockResult> init = pool.submit(() -> race(start, lock, LockHolder.INIT, new byte[] {1}));
                Future<LockResult> join = pool.submit(() -> race(start, lock, LockHolder.JOIN, new byte[] {2}));
                LockResult a = init.get(5, TimeUnit.SECONDS);
                LockResult b = join.get(5, TimeUnit.SECONDS);
                assertTrue(a.won() ^ b.won(), "trial " + trial + ": exactly one path wins");
                assertEquals(1, marks.size(), "trial " + trial + ": the TPM is marked once");
                LockHolder winner = a.won() ? LockHolder.INIT : LockHolder.JOIN;
                LockResult loser = a.won() ? b : a;
                assertEquals(winner, ((LockResult.AlreadyLocked) loser).by(), "the loser is told who won");
                assertArrayEquals(new byte[] {(byte) (winner == LockHolder.INIT ? 1 : 2)}, marks.get(0));
                initWins += a.won() ? 1 : 0;
            }
            System.out.printf("node lock race: init won %d of 1000, join won %d%n", initWins, 1000 - initWins);
        } finally {
            pool.shutdownNow();
        }
    }

    private static LockResult race(CyclicBarrier start, NodeLock lock, LockHolder who, byte[] id) throws Exception {
        start.await(5, TimeUnit.SECONDS);
        return lock.tryLockOnce(who, id);
    }

    @Test
    @DisplayName("the loser's result says 'node is already locked by <winner>'")
    void loserMessageNamesTheWinner() throws IOException {
        NodeLock lock = new NodeLock(id -> { });
        lock.tryLockOnce(LockHolder.JOIN, new byte[32]);
        LockResult second = lock.tryLockOnce(LockHolder.INIT, new byte[32]);
        assertInstanceOf(LockResult.AlreadyLocked.class, second);
        assertEquals("node is already locked by join", ((LockResult.AlreadyLocked) second).message());
    }

    @Test
    @DisplayName("a failed TPM marking leaves the node locked: there is no way back to the fresh state")
    void failedMarkingStillLocks() throws IOException {
        NodeLock lock = new NodeLock(id -> {
            throw new IOException("TPM gone");
        });
        assertThrows(IOException.class, () -> lock.tryLockOnce(LockHolder.INIT, new byte[32]));
        assertTrue(lock.isLocked());
        assertFalse(assertDoesNotThrowLock(lock).won());
    }

    private static LockResult assertDoesNotThrowLock(NodeLock lock) {
        try {
            return lock.tryLockOnce(LockHolder.JOIN, new byte[32]);
        } catch (IOException e) {
            throw new AssertionError("a second attempt must not reach the TPM", e);
        }
    }
}
