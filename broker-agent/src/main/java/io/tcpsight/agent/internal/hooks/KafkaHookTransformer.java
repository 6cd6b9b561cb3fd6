package io.tcpsight.agent.internal.hooks;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Puts seven static calls to {@link Hooks} into four Kafka classes, with plain ASM, as
 * {@link HookPoints} declares them (the reference check is derived from the same declarations). Each call site
 * passes only JDK types (Object, String, SocketChannel, boolean) and adds no branch, so the
 * class's stack map frames stay valid as they are and nothing has to be loaded to compute new
 * ones: no other class is ever parsed, resolved or loaded while Kafka's class is being defined.
 * The class format does not change (no new members), so the same rewrite serves a retransform
 * on attach.
 *
 * <p>A constructor that delegates to another of its class ({@code this(...)}) is left alone, so each
 * object is reported once, by the constructor that did the work.
 */
public final class KafkaHookTransformer implements ClassFileTransformer {
    private static final Set<String> INTERNAL_NAMES =
            HookPoints.ALL.stream().map(point -> point.owner).collect(Collectors.toUnmodifiableSet());
    /** The classes this transformer rewrites, as {@link Class#getName()} spells them. */
    public static final Set<String> CLASS_NAMES =
            INTERNAL_NAMES.stream().map(name -> name.replace('/', '.')).collect(Collectors.toUnmodifiableSet());

    private final BiConsumer<String, Throwable> onError;

    /** @param onError told the class name and the failure when a class cannot be rewritten; the class then loads unchanged */
    public KafkaHookTransformer(BiConsumer<String, Throwable> onError) {
        this.onError = onError;
    }

    @Override
    public byte[] transform(
            ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
        if (className == null || !INTERNAL_NAMES.contains(className)) {
            return null;
        }
        try {
            List<String> missing = HookReferences.missing(className, bytes, loader);
            if (!missing.isEmpty()) {
                throw new IllegalStateException("this Kafka version lacks " + String.join(", ", missing)
                        + "; the class loads unchanged, none of its hooks applied");
            }
            return rewrite(className, bytes);
        } catch (Throwable failure) {
            // An exception out of a transformer is swallowed by the JVM; this is the only place it can be told.
            onError.accept(className.replace('/', '.'), failure);
            return null;
        }
    }

    /** The rewritten class, or null when none of its methods matched (a Kafka version with other signatures). */
    static byte[] rewrite(String className, byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        HookingClassVisitor visitor = new HookingClassVisitor(className, writer);
        reader.accept(visitor, 0);
        if (visitor.hooked == 0) {
            throw new IllegalStateException(
                    "no method with the expected signature; this Kafka version is not supported");
        }
        return writer.toByteArray();
    }

    private static final class HookingClassVisitor extends ClassVisitor {
        private final List<HookPoint> points;
        int hooked;

        HookingClassVisitor(String className, ClassVisitor next) {
            super(Opcodes.ASM9, next);
            this.points = HookPoints.of(className);
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            MethodVisitor hooking = hook(name, descriptor, next);
            if (hooking != next) {
                hooked++;
            }
            return hooking;
        }

        private MethodVisitor hook(String name, String descriptor, MethodVisitor next) {
            for (HookPoint point : points) {
                if (point.matches(name, descriptor)) {
                    return point.apply(descriptor, next);
                }
            }
            return next;
        }
    }
}
