package io.tcpsight.agent.internal.naming;

import java.lang.reflect.Method;
import java.util.List;

/**
 * The sizes a client asked for in a Fetch request, read by reflection from the body Kafka parsed
 * ({@code RequestAndSize.request}, a {@code FetchRequest}; its {@code FetchRequestData}: MaxBytes
 * and each partition's PartitionMaxBytes), so that the broker judges the fetch sizes of any
 * client library with the values it actually sent. Nothing here links to Kafka.
 */
final class FetchRequestSizes {
    /** What one Fetch asked for: its MaxBytes, the largest PartitionMaxBytes, and how many partitions. */
    static final class Sizes {
        final long maxBytes;
        final long partitionMaxBytes;
        final int partitions;

        Sizes(long maxBytes, long partitionMaxBytes, int partitions) {
            this.maxBytes = maxBytes;
            this.partitionMaxBytes = partitionMaxBytes;
            this.partitions = partitions;
        }
    }

    /**
     * A connection's first request body was read and told no sizes (not a Fetch, an incremental Fetch, one
     * that could not be read): only the first is read, so this marks it read without a flag a connection.
     */
    static final Sizes NONE_TOLD = new Sizes(-1, -1, 0);

    private FetchRequestSizes() {}

    /** Whether this parsed body is a Fetch (its class's simple name), without reading anything else. */
    static Object fetchRequest(Object requestAndSize) throws ReflectiveOperationException {
        Object body = ParsedRequests.body(requestAndSize);
        return body != null && body.getClass().getSimpleName().equals("FetchRequest") ? body : null;
    }

    /**
     * The sizes of a Fetch, or null when it names no partition: an incremental fetch (KIP-227)
     * sends only the partitions that changed, so only a full one shows them all.
     */
    static Sizes of(Object fetchRequest) throws ReflectiveOperationException {
        Object data = call(fetchRequest, "data");
        long maxBytes = ((Number) call(data, "maxBytes")).longValue();
        long partitionMaxBytes = 0;
        int partitions = 0;
        for (Object topic : (List<?>) call(data, "topics")) {
            for (Object partition : (List<?>) call(topic, "partitions")) {
                partitionMaxBytes =
                        Math.max(partitionMaxBytes, ((Number) call(partition, "partitionMaxBytes")).longValue());
                partitions++;
            }
        }
        return partitions == 0 ? null : new Sizes(maxBytes, partitionMaxBytes, partitions);
    }

    /** The replica id a Fetch carried: a follower's broker id, -1 for a consumer. */
    static int replicaId(Object fetchRequest) throws ReflectiveOperationException {
        return ((Number) call(fetchRequest, "replicaId")).intValue();
    }

    private static Object call(Object target, String name) throws ReflectiveOperationException {
        Method method = target.getClass().getMethod(name);
        return method.invoke(target);
    }
}
