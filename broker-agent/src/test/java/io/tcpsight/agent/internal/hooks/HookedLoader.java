package io.tcpsight.agent.internal.hooks;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Kafka's classes and the exercise child-first, rewritten as the JVM would hand them to the
 * agent. A mutation may first change a Kafka class, standing in for a Kafka version whose
 * members differ.
 */
final class HookedLoader extends ClassLoader {
    private final KafkaHookTransformer transformer;
    private final Map<String, UnaryOperator<byte[]>> mutations;
    final Set<String> rewritten = new TreeSet<>();

    HookedLoader(KafkaHookTransformer transformer, ClassLoader parent) {
        this(transformer, parent, Map.of());
    }

    /** @param mutations by internal class name: what the loader hands over instead of Kafka's bytes */
    HookedLoader(KafkaHookTransformer transformer, ClassLoader parent, Map<String, UnaryOperator<byte[]>> mutations) {
        super(parent);
        this.transformer = transformer;
        this.mutations = mutations;
    }

    /** The mutated bytes are what a resource read sees too: the reference check reads a neighbour class that way. */
    @Override
    public InputStream getResourceAsStream(String name) {
        String internal = name.endsWith(".class") ? name.substring(0, name.length() - ".class".length()) : name;
        UnaryOperator<byte[]> mutation = mutations.get(internal);
        if (mutation == null) {
            return super.getResourceAsStream(name);
        }
        try (InputStream in = getParent().getResourceAsStream(name)) {
            return in == null ? null : new ByteArrayInputStream(mutation.apply(in.readAllBytes()));
        } catch (IOException unreadable) {
            return null;
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith("org.apache.kafka.") && !name.equals(HookedKafkaExercise.class.getName())) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded != null) {
                return loaded;
            }
            String internal = name.replace('.', '/');
            byte[] bytes;
            try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
                if (in == null) {
                    throw new ClassNotFoundException(name);
                }
                bytes = in.readAllBytes();
            } catch (IOException unreadable) {
                throw new ClassNotFoundException(name, unreadable);
            }
            bytes = mutations.getOrDefault(internal, UnaryOperator.identity()).apply(bytes);
            byte[] hooked = transformer.transform(this, internal, null, null, bytes);
            if (hooked != null) {
                rewritten.add(name);
                bytes = hooked;
            }
            return defineClass(name, bytes, 0, bytes.length);
        }
    }
}
