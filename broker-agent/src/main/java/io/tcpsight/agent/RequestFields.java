package io.tcpsight.agent;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/** Reads RequestContext's public fields reflectively, once per class, so nothing here links to Kafka. */
final class RequestFields {
    private static volatile RequestFields cached;
    private final Class<?> type;
    private final Field header;
    private final Field principal;
    private final Field listenerName;

    private RequestFields(Class<?> type) throws ReflectiveOperationException {
        this.type = type;
        this.header = type.getField("header");
        this.principal = type.getField("principal");
        this.listenerName = type.getField("listenerName");
    }

    static RequestFields of(Object context) {
        RequestFields fields = cached;
        if (fields == null || fields.type != context.getClass()) {
            try {
                fields = new RequestFields(context.getClass());
            } catch (ReflectiveOperationException changed) {
                throw new IllegalStateException("RequestContext has no public header/principal/listenerName", changed);
            }
            cached = fields;
        }
        return fields;
    }

    String clientId(Object context) {
        return (String) call(get(header, context), "clientId");
    }

    String principal(Object context) {
        Object value = get(principal, context);
        return value == null ? null : value.toString();
    }

    String listener(Object context) {
        return (String) call(get(listenerName, context), "value");
    }

    private static Object get(Field field, Object target) {
        try {
            return field.get(target);
        } catch (IllegalAccessException inaccessible) {
            return null;
        }
    }

    private static Object call(Object target, String method) {
        if (target == null) {
            return null;
        }
        try {
            Method getter = target.getClass().getMethod(method);
            return getter.invoke(target);
        } catch (ReflectiveOperationException missing) {
            return null;
        }
    }
}
