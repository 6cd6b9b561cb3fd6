package io.tcpsight.internal.diagnose.finding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.RuleFacts;
import io.tcpsight.internal.diagnose.connection.SmallReceiveBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FindingsBoardTest {

    @Test
    void aFindingIsLoggedWhenItAppearsThenAtMostOncePerInterval() {
        List<Finding> logged = new ArrayList<>();
        FindingsBoard board = new FindingsBoard(60_000, logged::add);
        Finding finding = SmallReceiveBuffer.RULE
                .judge(RuleFacts.smallBufferConsumer(100).build(), TcpsightConfig.defaults())
                .get();
        board.publish(List.of(finding), 0);
        board.publish(List.of(finding), 10_000);
        board.publish(List.of(finding), 59_999);
        assertEquals(1, logged.size());
        board.publish(List.of(finding), 60_000);
        assertEquals(2, logged.size());
        board.publish(List.of(), 61_000);
        assertEquals(0, board.current().size());
        board.publish(List.of(finding), 62_000);
        assertEquals(3, logged.size(), "gone and back is new");
        assertEquals(1, board.count(RuleId.SMALL_RECEIVE_BUFFER, Severity.CRITICAL));
        assertEquals(1, (int) board.countBySeverity().get(Severity.CRITICAL));
    }
}
