package io.tcpsight.agent.internal.hooks;

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
    private HookReferences() {}

    /** What the class in {@code bytes} lacks for its hooks ({@link HookPoints}); empty when they can all be applied. */
    static List<String> missing(String className, byte[] bytes, ClassLoader loader) {
        List<HookPoint> points = HookPoints.of(className);
        List<String> missing = new ArrayList<>();
        if (points.isEmpty()) {
            missing.add("nothing is hooked in this class");
            return missing;
        }
        Members members = Members.of(bytes);
        for (HookPoint point : points) {
            if (!members.has(point)) {
                missing.add(point.describe());
            }
        }
        for (HookPoints.Requirement requirement : HookPoints.requirementsOf(className)) {
            boolean own = requirement.owner.equals(className);
            // another class is checked in its bytes, read as a resource, so that nothing is loaded while this one is
            // being defined; a loader that hides its resources skips the check, and the call site still guards itself
            Optional<Members> owner = own ? Optional.of(members) : otherClass(requirement.owner, loader);
            String prefix = own ? "" : simpleName(requirement.owner) + ".";
            owner.ifPresent(found -> found.require(requirement, prefix, missing));
        }
        return missing;
    }

    private static String simpleName(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
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
        private final Map<String, Integer> fieldAccess = new HashMap<>();

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
                fieldAccess.put(name, access);
            }
            return null;
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            methods.put(name + descriptor, access);
            return null;
        }

        boolean has(HookPoint point) {
            return methods.keySet().stream().anyMatch(method -> {
                int open = method.indexOf('(');
                return point.matches(method.substring(0, open), method.substring(open));
            });
        }

        void require(HookPoints.Requirement requirement, String owner, List<String> missing) {
            switch (requirement.kind) {
                case FIELD:
                    if (!requirement.descriptor.equals(fields.get(requirement.member))) {
                        missing.add("field " + simpleName(Type.getType(requirement.descriptor)) + " " + owner
                                + requirement.member);
                    }
                    break;
                case PUBLIC_FIELD:
                    Integer field = fieldAccess.get(requirement.member);
                    if (field == null || (field & Opcodes.ACC_PUBLIC) == 0) {
                        missing.add("public field " + owner + requirement.member);
                    }
                    break;
                case PUBLIC_METHOD:
                    Integer method = methods.get(requirement.member);
                    if (method == null || (method & Opcodes.ACC_PUBLIC) == 0) {
                        missing.add("public " + owner + readable(requirement.member));
                    }
                    break;
                default:
                    throw new IllegalStateException(requirement.kind.name());
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
