package io.tcpsight.connect.internal.policy;

/**
 * Whether the current call comes from a worker building a task's clients, as opposed to a REST
 * validation. Connect passes both through the same override-policy call; only the worker's
 * task start runs inside {@code org.apache.kafka.connect.runtime.Worker}.
 */
public final class WorkerTaskStart {
    static final String WORKER_CLASS = "org.apache.kafka.connect.runtime.Worker";

    private WorkerTaskStart() {}

    public static boolean isCurrent() {
        return StackWalker.getInstance()
                .walk(frames -> frames.anyMatch(frame -> frame.getClassName().equals(WORKER_CLASS)));
    }
}
