package io.tcpsight.agent.hooks;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Puts six static calls to {@link Hooks} into four Kafka classes, with plain ASM. Each call site
 * passes only JDK types (Object, String, SocketChannel, boolean) and adds no branch, so the
 * class's stack map frames stay valid as they are and nothing has to be loaded to compute new
 * ones: no other class is ever parsed, resolved or loaded while Kafka's class is being defined.
 * The class format does not change (no new members), so the same rewrite serves a retransform
 * on attach.
 *
 * <ul>
 *   <li>{@code Selector.connect(String, InetSocketAddress, int, int)}, entry: {@link Hooks#connectStarting()}.
 *   <li>{@code Selector.registerChannel(String, SocketChannel, int)}, every return: {@link Hooks#registered}.
 *   <li>{@code Selector.doClose(KafkaChannel, boolean)}, entry: {@link Hooks#closingChannel(Object)}.
 *   <li>{@code KafkaChannel.finishConnect()}, every return: {@link Hooks#finishedConnect(boolean, Object)}.
 *   <li>{@code NetworkClient}'s constructors, every return: {@link Hooks#networkClient(Object, String)}.
 *   <li>{@code RequestContext}'s constructors, every return: {@link Hooks#request(String, Object)}.
 * </ul>
 * A constructor that delegates to another of its class ({@code this(...)}) is left alone, so each
 * object is reported once, by the constructor that did the work.
 */
public final class KafkaHookTransformer implements ClassFileTransformer {
    static final String SELECTOR = "org/apache/kafka/common/network/Selector";
    static final String KAFKA_CHANNEL = "org/apache/kafka/common/network/KafkaChannel";
    static final String NETWORK_CLIENT = "org/apache/kafka/clients/NetworkClient";
    static final String REQUEST_CONTEXT = "org/apache/kafka/common/requests/RequestContext";
    private static final Set<String> INTERNAL_NAMES = Set.of(SELECTOR, KAFKA_CHANNEL, NETWORK_CLIENT, REQUEST_CONTEXT);
    /** The classes this transformer rewrites, as {@link Class#getName()} spells them. */
    public static final Set<String> CLASS_NAMES = Set.of(
            SELECTOR.replace('/', '.'),
            KAFKA_CHANNEL.replace('/', '.'),
            NETWORK_CLIENT.replace('/', '.'),
            REQUEST_CONTEXT.replace('/', '.'));

    private static final String HOOKS = Type.getInternalName(Hooks.class);
    private static final String SELECTABLE = "Lorg/apache/kafka/common/network/Selectable;";
    private static final String STRING = "Ljava/lang/String;";

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
        private final String className;
        int hooked;

        HookingClassVisitor(String className, ClassVisitor next) {
            super(Opcodes.ASM9, next);
            this.className = className;
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
            switch (className) {
                case SELECTOR:
                    if (name.equals("connect")
                            && descriptor.equals("(Ljava/lang/String;Ljava/net/InetSocketAddress;II)V")) {
                        return new AtEntry(
                                next,
                                mv -> mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "connectStarting", "()V", false));
                    }
                    if (name.equals("registerChannel")
                            && descriptor.startsWith("(Ljava/lang/String;Ljava/nio/channels/SocketChannel;I)")) {
                        return new BeforeReturn(next, null, mv -> {
                            mv.visitVarInsn(Opcodes.ALOAD, 0);
                            mv.visitVarInsn(Opcodes.ALOAD, 1);
                            mv.visitVarInsn(Opcodes.ALOAD, 2);
                            mv.visitMethodInsn(
                                    Opcodes.INVOKESTATIC,
                                    HOOKS,
                                    "registered",
                                    "(Ljava/lang/Object;Ljava/lang/String;Ljava/nio/channels/SocketChannel;)V",
                                    false);
                        });
                    }
                    if (name.equals("doClose") && descriptor.equals("(L" + KAFKA_CHANNEL + ";Z)V")) {
                        return new AtEntry(next, mv -> {
                            mv.visitVarInsn(Opcodes.ALOAD, 1);
                            mv.visitMethodInsn(
                                    Opcodes.INVOKESTATIC, HOOKS, "closingChannel", "(Ljava/lang/Object;)V", false);
                        });
                    }
                    return next;
                case KAFKA_CHANNEL:
                    if (name.equals("finishConnect") && descriptor.equals("()Z")) {
                        // The boolean being returned is duplicated and passed on with the channel.
                        return new BeforeReturn(next, null, mv -> {
                            mv.visitInsn(Opcodes.DUP);
                            mv.visitVarInsn(Opcodes.ALOAD, 0);
                            mv.visitMethodInsn(
                                    Opcodes.INVOKESTATIC, HOOKS, "finishedConnect", "(ZLjava/lang/Object;)V", false);
                        });
                    }
                    return next;
                case NETWORK_CLIENT:
                    if (name.equals("<init>")) {
                        int selector = slotOfFirst(descriptor, SELECTABLE);
                        int clientId = slotOfFirst(descriptor, STRING);
                        if (selector < 0) {
                            return next;
                        }
                        return new BeforeReturn(next, NETWORK_CLIENT, mv -> {
                            mv.visitVarInsn(Opcodes.ALOAD, selector);
                            if (clientId < 0) {
                                mv.visitInsn(Opcodes.ACONST_NULL);
                            } else {
                                mv.visitVarInsn(Opcodes.ALOAD, clientId);
                            }
                            mv.visitMethodInsn(
                                    Opcodes.INVOKESTATIC,
                                    HOOKS,
                                    "networkClient",
                                    "(Ljava/lang/Object;Ljava/lang/String;)V",
                                    false);
                        });
                    }
                    return next;
                case REQUEST_CONTEXT:
                    if (name.equals("<init>")) {
                        return new BeforeReturn(next, REQUEST_CONTEXT, mv -> {
                            mv.visitVarInsn(Opcodes.ALOAD, 0);
                            mv.visitFieldInsn(Opcodes.GETFIELD, REQUEST_CONTEXT, "connectionId", STRING);
                            mv.visitVarInsn(Opcodes.ALOAD, 0);
                            mv.visitMethodInsn(
                                    Opcodes.INVOKESTATIC,
                                    HOOKS,
                                    "request",
                                    "(Ljava/lang/String;Ljava/lang/Object;)V",
                                    false);
                        });
                    }
                    return next;
                default:
                    return next;
            }
        }
    }

    /** The local variable slot of the first parameter of the given type, or -1. Slot 0 is {@code this}. */
    static int slotOfFirst(String methodDescriptor, String typeDescriptor) {
        int slot = 1;
        for (Type argument : Type.getArgumentTypes(methodDescriptor)) {
            if (argument.getDescriptor().equals(typeDescriptor)) {
                return slot;
            }
            slot += argument.getSize();
        }
        return -1;
    }

    private interface CallSite {
        void emit(MethodVisitor method);
    }

    private static final class AtEntry extends MethodVisitor {
        private final CallSite call;

        AtEntry(MethodVisitor next, CallSite call) {
            super(Opcodes.ASM9, next);
            this.call = call;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            call.emit(mv);
        }
    }

    /**
     * Before every normal return; a method that throws skips the call. For a constructor
     * ({@code owner} given), not at all when it delegates to another constructor of its class:
     * that one reports the object.
     */
    private static final class BeforeReturn extends MethodVisitor {
        private final String owner;
        private final CallSite call;
        private boolean delegated;

        BeforeReturn(MethodVisitor next, String owner, CallSite call) {
            super(Opcodes.ASM9, next);
            this.owner = owner;
            this.call = call;
        }

        @Override
        public void visitMethodInsn(
                int opcode, String methodOwner, String name, String descriptor, boolean isInterface) {
            // A constructor's this(...) call comes before any of its returns in the code.
            if (owner != null
                    && opcode == Opcodes.INVOKESPECIAL
                    && methodOwner.equals(owner)
                    && name.equals("<init>")) {
                delegated = true;
            }
            super.visitMethodInsn(opcode, methodOwner, name, descriptor, isInterface);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN && !delegated) {
                call.emit(mv);
            }
            super.visitInsn(opcode);
        }
    }
}
