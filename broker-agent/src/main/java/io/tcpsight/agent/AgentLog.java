package io.tcpsight.agent;

import io.tcpsight.internal.model.LogText;
import java.lang.reflect.Method;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs through the host's SLF4J when it has one (found reflectively, so the agent brings no
 * binding onto the broker's classpath), else through java.util.logging.
 */
final class AgentLog {
    private static final String NAME = "io.tcpsight.agent";
    private final Object slf4j;
    private final Method info;
    private final Method warn;
    private final Logger jul = Logger.getLogger(NAME);

    private AgentLog(Object slf4j, Method info, Method warn) {
        this.slf4j = slf4j;
        this.info = info;
        this.warn = warn;
    }

    static AgentLog create() {
        try {
            Class<?> factory = Class.forName("org.slf4j.LoggerFactory", true, ClassLoader.getSystemClassLoader());
            Object logger = factory.getMethod("getLogger", String.class).invoke(null, NAME);
            Class<?> loggerType = Class.forName("org.slf4j.Logger", true, ClassLoader.getSystemClassLoader());
            return new AgentLog(
                    logger, loggerType.getMethod("info", String.class), loggerType.getMethod("warn", String.class));
        } catch (ReflectiveOperationException | LinkageError noSlf4j) {
            return new AgentLog(null, null, null);
        }
    }

    void info(String message) {
        log(info, Level.INFO, message);
    }

    void warn(String message) {
        log(warn, Level.WARNING, message);
    }

    /** Every line is one line: client.ids and connection ids in it come from clients. */
    private void log(Method method, Level level, String text) {
        String message = LogText.oneLine(text);
        if (slf4j != null) {
            try {
                method.invoke(slf4j, message);
                return;
            } catch (ReflectiveOperationException | RuntimeException unusable) {
                // fall through to java.util.logging
            }
        }
        jul.log(level, message);
    }
}
