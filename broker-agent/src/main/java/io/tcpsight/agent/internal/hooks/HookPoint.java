package io.tcpsight.agent.internal.hooks;

import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * One hook, declared once: the Kafka method it goes into, where in it the static call to
 * {@link Hooks} goes, and the call. {@link KafkaHookTransformer} applies the declarations and
 * {@link HookReferences} derives its check from them, so the two cannot drift apart.
 */
final class HookPoint {
    /** Where in the method the call goes. */
    enum Where {
        /** First, before the method's own code. */
        ENTRY,
        /**
         * Before every normal return (a method that throws skips the call); for a constructor, not at all
         * when it delegates to another constructor of its class: that one reports the object.
         */
        BEFORE_RETURN
    }

    /** Emits the call, given the matched method's descriptor (for the slots of its parameters). */
    interface CallSite {
        void emit(MethodVisitor method, String descriptor);
    }

    final String owner;
    final String method;
    /** The exact descriptor; or, ending in "*", its leading parameters; null for "a constructor taking {@link #taking}". */
    final String descriptor;
    /** For a constructor: a parameter type it must take ("" for any constructor). */
    final String taking;

    final Where where;
    final CallSite call;

    private HookPoint(String owner, String method, String descriptor, String taking, Where where, CallSite call) {
        this.owner = owner;
        this.method = method;
        this.descriptor = descriptor;
        this.taking = taking;
        this.where = where;
        this.call = call;
    }

    /** A method of exactly this descriptor, or of these leading parameters when it ends in "*". */
    static HookPoint method(String owner, String method, String descriptor, Where where, CallSite call) {
        return new HookPoint(owner, method, descriptor, null, where, call);
    }

    /** Every constructor that takes a parameter of this type ("" for every constructor), before its returns. */
    static HookPoint constructorTaking(String owner, String parameterDescriptor, CallSite call) {
        return new HookPoint(owner, "<init>", null, parameterDescriptor, Where.BEFORE_RETURN, call);
    }

    boolean matches(String name, String methodDescriptor) {
        if (!name.equals(method)) {
            return false;
        }
        if (descriptor == null) {
            return taking.isEmpty() || slotOfFirst(methodDescriptor, taking) > 0;
        }
        return descriptor.endsWith("*")
                ? methodDescriptor.startsWith(descriptor.substring(0, descriptor.length() - 1))
                : methodDescriptor.equals(descriptor);
    }

    /** What the reference check says is missing when no method of the class matches. */
    String describe() {
        if (descriptor == null) {
            return taking.isEmpty()
                    ? "a constructor"
                    : "a constructor taking " + Type.getType(taking).getClassName();
        }
        boolean openEnded = descriptor.endsWith("*");
        String closed = openEnded ? descriptor.substring(0, descriptor.length() - 1) + ")V" : descriptor;
        StringBuilder text = new StringBuilder(method).append('(');
        Type[] arguments = Type.getArgumentTypes(closed);
        for (int i = 0; i < arguments.length; i++) {
            text.append(i > 0 ? ", " : "").append(simpleName(arguments[i]));
        }
        return text.append(openEnded ? ", ...)" : ")").toString();
    }

    static String simpleName(Type type) {
        String name = type.getClassName();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** The method visitor that puts the call in place. */
    MethodVisitor apply(String methodDescriptor, MethodVisitor next) {
        return where == Where.ENTRY
                ? new AtEntry(next, mv -> call.emit(mv, methodDescriptor))
                : new BeforeReturn(next, method.equals("<init>") ? owner : null, mv -> call.emit(mv, methodDescriptor));
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

    private interface Emit {
        void emit(MethodVisitor method);
    }

    private static final class AtEntry extends MethodVisitor {
        private final Emit call;

        AtEntry(MethodVisitor next, Emit call) {
            super(Opcodes.ASM9, next);
            this.call = call;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            call.emit(mv);
        }
    }

    private static final class BeforeReturn extends MethodVisitor {
        private final String owner;
        private final Emit call;
        private boolean delegated;

        BeforeReturn(MethodVisitor next, String owner, Emit call) {
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
