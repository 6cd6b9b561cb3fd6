package io.tcpsight.agent.internal.naming;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;

/**
 * A request body as Kafka parsed it ({@code RequestAndSize}: its {@code request}, and its
 * {@code size}, the bytes read off the socket), and what a Produce request says, read by
 * reflection so nothing here links to Kafka ({@link FetchRequestSizes} reads a Fetch's sizes). The size costs one field read; the partitions a
 * request names cost a walk of its topics, so the caller reads them only now and then.
 */
final class ParsedRequests {
    /** RequestAndSize's two public fields, looked up once per class. */
    private static final class Fields {
        final Class<?> type;
        final Field request;
        final Field size;

        Fields(Class<?> type) throws ReflectiveOperationException {
            this.type = type;
            this.request = type.getField("request");
            this.size = type.getField("size");
        }
    }

    private static volatile Fields fields;
    /** The ProduceRequest class, once one was seen: later requests are compared by identity, not by name. */
    private static volatile Class<?> produceClass;

    private ParsedRequests() {}

    private static Fields fields(Object requestAndSize) throws ReflectiveOperationException {
        Fields known = fields;
        if (known == null || known.type != requestAndSize.getClass()) {
            known = new Fields(requestAndSize.getClass());
            fields = known;
        }
        return known;
    }

    /** The request body Kafka parsed (a FetchRequest, a ProduceRequest, ...), or null. */
    static Object body(Object requestAndSize) throws ReflectiveOperationException {
        return fields(requestAndSize).request.get(requestAndSize);
    }

    /** The Produce request in this parsed body, or null when it is another request. */
    static Object produceRequest(Object requestAndSize) throws ReflectiveOperationException {
        Object body = body(requestAndSize);
        if (body == null) {
            return null;
        }
        Class<?> type = body.getClass();
        if (type == produceClass) {
            return body;
        }
        if (produceClass == null && type.getSimpleName().equals("ProduceRequest")) {
            produceClass = type;
            return body;
        }
        return null;
    }

    /** The bytes of the request as the broker read it off the socket. */
    static int size(Object requestAndSize) throws ReflectiveOperationException {
        return fields(requestAndSize).size.getInt(requestAndSize);
    }

    /** The partitions the request writes to: ProduceRequestData's topicData, each topic's partitionData. */
    static int partitions(Object produceRequest) throws ReflectiveOperationException {
        Object data = call(produceRequest, "data");
        int partitions = 0;
        for (Object topic : (Collection<?>) call(data, "topicData")) {
            partitions += ((Collection<?>) call(topic, "partitionData")).size();
        }
        return partitions;
    }

    private static Object call(Object target, String name) throws ReflectiveOperationException {
        Method method = target.getClass().getMethod(name);
        return method.invoke(target);
    }
}
