package io.tcpsight.agent.internal.naming;

import io.tcpsight.agent.internal.hooks.RequestContextReads;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Reads RequestContext's public fields reflectively, once per class, so nothing here links to
 * Kafka. The fields are named in {@link RequestContextReads}, which the hooks' reference check
 * covers: a RequestContext without a required one is never hooked. {@code clientInformation} (KIP-511, Kafka 2.4 on) is optional.
 */
final class RequestFields {
    private static volatile RequestFields cached;
    private final Class<?> type;
    private final Field header;
    private final Field principal;
    private final Field listenerName;
    private final Field clientInformation;
    /** Kafka 3.8 on: the Processor always gives the client's port; a forwarded request's context has none. */
    private final Field clientPort;

    private final Field clientAddress;
    private final Field connectionId;
    /** RequestHeader.apiKey(), looked up once: it is read on every request until the connection fetched or produced. */
    private final Method apiKey;

    private RequestFields(Class<?> type) throws ReflectiveOperationException {
        this.type = type;
        this.header = type.getField(RequestContextReads.HEADER);
        this.apiKey = optionalMethod(header.getType(), "apiKey");
        this.principal = type.getField(RequestContextReads.PRINCIPAL);
        this.listenerName = type.getField(RequestContextReads.LISTENER_NAME);
        this.clientInformation = optionalField(type, RequestContextReads.CLIENT_INFORMATION);
        this.clientPort = optionalField(type, RequestContextReads.CLIENT_PORT);
        this.clientAddress = optionalField(type, RequestContextReads.CLIENT_ADDRESS);
        this.connectionId = optionalField(type, RequestContextReads.CONNECTION_ID);
    }

    private static Field optionalField(Class<?> type, String name) {
        try {
            return type.getField(name);
        } catch (NoSuchFieldException absent) {
            return null;
        }
    }

    private static Method optionalMethod(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException absent) {
            return null;
        }
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

    /** The id of the connection the request came on, or null where the context has none. */
    String connectionId(Object context) {
        Object id = get(connectionId, context);
        return id instanceof String ? (String) id : null;
    }

    String clientId(Object context) {
        return (String) call(get(header, context), "clientId");
    }

    /** The request's API ("FETCH", "PRODUCE", ...: the ApiKeys constant's name), or null when unreadable. */
    String apiKey(Object context) {
        Object requestHeader = get(header, context);
        if (apiKey == null || requestHeader == null) {
            return null;
        }
        try {
            Object key = apiKey.invoke(requestHeader);
            return key instanceof Enum ? ((Enum<?>) key).name() : null;
        } catch (ReflectiveOperationException unreadable) {
            return null;
        }
    }

    /** The KafkaPrincipal object (a SASL channel builds a new, equal one for every request). */
    Object principalObject(Object context) {
        return get(principal, context);
    }

    /** The ClientInformation object, or null on a Kafka without it: replaced once ApiVersions told it. */
    Object clientInformationObject(Object context) {
        return clientInformation == null ? null : get(clientInformation, context);
    }

    /** "name/version" from a ClientInformation, or null while the client has not said ("unknown"). */
    static String software(Object clientInformation) {
        Object name = call(clientInformation, "softwareName");
        Object version = call(clientInformation, "softwareVersion");
        if (name == null || "unknown".equals(name)) {
            return null;
        }
        return version == null || "unknown".equals(version) ? name.toString() : name + "/" + version;
    }

    /**
     * Whether the context is a forwarded request's (KIP-590), which the controller rebuilds from an
     * envelope on a request handler thread: it carries the original client's client.id and principal
     * but the broker-to-controller connection's id, so it must not relabel that connection. Kafka's
     * Processor always passes the client's port, a forwarded context none; before Kafka 3.8, which
     * has no port, the forwarded client's address differs from the connection's peer.
     */
    boolean forwarded(Object context, InetSocketAddress peer) {
        Object port = get(clientPort, context);
        if (clientPort != null) {
            return port instanceof Optional && ((Optional<?>) port).isEmpty();
        }
        Object address = get(clientAddress, context);
        return address instanceof InetAddress
                && peer != null
                && peer.getAddress() != null
                && !address.equals(peer.getAddress());
    }

    String listener(Object context) {
        return (String) call(get(listenerName, context), "value");
    }

    private static Object get(Field field, Object target) {
        if (field == null) {
            return null;
        }
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
