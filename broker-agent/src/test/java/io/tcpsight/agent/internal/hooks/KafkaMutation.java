package io.tcpsight.agent.internal.hooks;

import java.util.function.UnaryOperator;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * A Kafka class as another Kafka version might have it: one member renamed in its declaration and
 * at every use inside the class, so the class itself stays valid and only a hook that expects the
 * old name could break it.
 */
final class KafkaMutation {
    private KafkaMutation() {}

    static UnaryOperator<byte[]> renameField(String owner, String from, String to) {
        return bytes -> rename(bytes, owner, from, to, true);
    }

    static UnaryOperator<byte[]> renameMethod(String owner, String from, String to) {
        return bytes -> rename(bytes, owner, from, to, false);
    }

    /** The method made package-private: present, but not reachable through a public lookup. */
    static UnaryOperator<byte[]> hideMethod(String name) {
        return bytes -> rewrite(bytes, writer -> new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(
                    int access, String method, String descriptor, String signature, String[] exceptions) {
                int changed = method.equals(name) ? access & ~Opcodes.ACC_PUBLIC : access;
                return super.visitMethod(changed, method, descriptor, signature, exceptions);
            }
        });
    }

    /** The class read through the visitor that {@code mutation} puts in front of a writer. */
    private static byte[] rewrite(byte[] bytes, UnaryOperator<ClassVisitor> mutation) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(mutation.apply(writer), 0);
        return writer.toByteArray();
    }

    private static byte[] rename(byte[] bytes, String owner, String from, String to, boolean field) {
        return rewrite(bytes, writer -> new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                return super.visitField(access, field && name.equals(from) ? to : name, descriptor, signature, value);
            }

            @Override
            public MethodVisitor visitMethod(
                    int access, String name, String descriptor, String signature, String[] exceptions) {
                String declared = !field && name.equals(from) ? to : name;
                MethodVisitor next = super.visitMethod(access, declared, descriptor, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, next) {
                    @Override
                    public void visitFieldInsn(int opcode, String fieldOwner, String name, String descriptor) {
                        boolean renamed = field && fieldOwner.equals(owner) && name.equals(from);
                        super.visitFieldInsn(opcode, fieldOwner, renamed ? to : name, descriptor);
                    }

                    @Override
                    public void visitMethodInsn(
                            int opcode, String methodOwner, String name, String descriptor, boolean itf) {
                        boolean renamed = !field && methodOwner.equals(owner) && name.equals(from);
                        super.visitMethodInsn(opcode, methodOwner, renamed ? to : name, descriptor, itf);
                    }
                };
            }
        });
    }
}
