package io.tcpsight.connect;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;
import org.junit.jupiter.api.Test;

class TcpsightRestExtensionTest {
    /**
     * A bad tcpsight key in the worker's config never stops the worker: configure() logs a line, and
     * register() then asks the worker for nothing and adds nothing.
     */
    @Test
    void aBadSettingTurnsTheExtensionOffAndTheWorkerRunsOn() {
        TcpsightRestExtension extension = new TcpsightRestExtension();
        assertDoesNotThrow(() -> extension.configure(
                Map.of("bootstrap.servers", "127.0.0.1:9", "tcpsight.readapt.check.interval.ms", "soon")));
        List<String> asked = new ArrayList<>();
        ConnectRestExtensionContext context = (ConnectRestExtensionContext) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {ConnectRestExtensionContext.class},
                (proxy, method, arguments) -> {
                    asked.add(method.getName());
                    throw new IllegalStateException("an extension that is off asks the worker for nothing");
                });
        assertDoesNotThrow(() -> extension.register(context));
        assertEquals(List.of(), asked);
        assertDoesNotThrow(extension::close);
    }
}
