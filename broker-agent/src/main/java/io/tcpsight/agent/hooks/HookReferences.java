package io.tcpsight.agent.hooks;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The reference check that runs before any rewrite (the OpenTelemetry agent's "muzzle"): every
 * method and field a class's hooks call, read or rely on must be there, with the expected shape.
 * A class's hooks are one set: when anything is missing none of them is applied, so a Selector
 * never reports registrations without the closes that release them.
 */
final class HookReferences {
    static final String SELECTION_KEY = "selectionKey()Ljava/nio/channels/SelectionKey;";

    private HookReferences() {}

    /** What the class in {@code bytes} lacks for its hooks; empty when they can all be applied. */
    static List<String> missing(String className, byte[] bytes, ClassLoader loader) {
        Members members = Members.of(bytes);
        List<String> missing = new ArrayList<>();
        switch (className) {
            case KafkaHookTransformer.SELECTOR:
                members.requireMethod("connect(Ljava/lang/String;Ljava/net/InetSocketAddress;II)V", missing);
                members.requireMethodStartingWith(
                        "registerChannel(Ljava/lang/String;Ljava/nio/channels/SocketChannel;I)", missing);
                members.requireMethod("doClose(L" + KafkaHookTransformer.KAFKA_CHANNEL + ";Z)V", missing);
                // The close hook finds the socket through KafkaChannel.selectionKey(): checked in its bytes,
                // read as a resource, so that nothing is loaded while Selector is being defined.
                otherClass(KafkaHookTransformer.KAFKA_CHANNEL, loader)
                        .ifPresent(channel -> channel.requirePublicMethod(SELECTION_KEY, "KafkaChannel.", missing));
                break;
            case KafkaHookTransformer.KAFKA_CHANNEL:
                members.requireMethod("finishConnect()Z", missing);
                members.requirePublicMethod(SELECTION_KEY, "", missing);
                break;
            case KafkaHookTransformer.NETWORK_CLIENT:
                members.requireConstructorWith("Lorg/apache/kafka/common/network/Selectable;", missing);
                break;
            case KafkaHookTransformer.REQUEST_CONTEXT:
                members.requireField("connectionId", "Ljava/lang/String;", missing);
                members.requireConstructorWith("", missing);
                break;
            default:
                missing.add("nothing is hooked in this class");
        }
        return missing;
    }

    private static Optional<Members> otherClass(String internalName, ClassLoader loader) {
        String resource = internalName + ".class";
        try (InputStream in = loader == null
                ? ClassLoader.getSystemResourceAsStream(resource)
                : loader.getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(Members.of(in.readAllBytes()));
        } catch (IOException | RuntimeException unreadable) {
            // A loader that hides its resources: the check is skipped, the call site still guards itself.
            return Optional.empty();
        }
    }

    /** A class's declared methods (name + descriptor -> access) and instance fields (name -> descriptor). */
    private static final class Members extends ClassVisitor {
        private final Map<String, Integer> methods = new HashMap<>();
        private final Map<String, String> fields = new HashMap<>();

        private Members() {
            super(Opcodes.ASM9);
        }

        static Members of(byte[] bytes) {
            Members members = new Members();
            new ClassReader(bytes).accept(members, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG);
            return members;
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            if ((access & Opcodes.ACC_STATIC) == 0) {
                fields.put(name, descriptor);
            }
            return null;
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            methods.put(name + descriptor, access);
            return null;
        }

        void requireMethod(String nameAndDescriptor, List<String> missing) {
            if (!methods.containsKey(nameAndDescriptor)) {
                missing.add(readable(nameAndDescriptor));
            }
        }

        void requireMethodStartingWith(String prefix, List<String> missing) {
            if (methods.keySet().stream().noneMatch(method -> method.startsWith(prefix))) {
                missing.add(readable(prefix + "*"));
            }
        }

        void requirePublicMethod(String nameAndDescriptor, String owner, List<String> missing) {
            Integer access = methods.get(nameAndDescriptor);
            if (access == null || (access & Opcodes.ACC_PUBLIC) == 0) {
                missing.add("public " + owner + readable(nameAndDescriptor));
            }
        }

        void requireConstructorWith(String parameterDescriptor, List<String> missing) {
            boolean found = methods.keySet().stream()
                    .filter(method -> method.startsWith("<init>("))
                    .anyMatch(method -> parameterDescriptor.isEmpty()
                            || KafkaHookTransformer.slotOfFirst(
                                            method.substring("<init>".length()), parameterDescriptor)
                                    > 0);
            if (!found) {
                missing.add(
                        parameterDescriptor.isEmpty()
                                ? "a constructor"
                                : "a constructor taking "
                                        + Type.getType(parameterDescriptor).getClassName());
            }
        }

        void requireField(String name, String descriptor, List<String> missing) {
            if (!descriptor.equals(fields.get(name))) {
                missing.add("field " + simpleName(Type.getType(descriptor)) + " " + name);
            }
        }

        private static String simpleName(Type type) {
            String name = type.getClassName();
            return name.substring(name.lastIndexOf('.') + 1);
        }

        /** connect(Ljava/lang/String;I)V -> connect(String, int). */
        private static String readable(String nameAndDescriptor) {
            int open = nameAndDescriptor.indexOf('(');
            String name = nameAndDescriptor.substring(0, open);
            String descriptor = nameAndDescriptor.substring(open);
            boolean openEnded = descriptor.endsWith("*");
            if (openEnded) {
                descriptor = descriptor.substring(0, descriptor.length() - 1) + "V";
            }
            List<String> parameters = new ArrayList<>();
            for (Type argument : Type.getArgumentTypes(descriptor)) {
                parameters.add(simpleName(argument));
            }
            return name + "(" + String.join(", ", parameters) + ")";
        }
    }
}
