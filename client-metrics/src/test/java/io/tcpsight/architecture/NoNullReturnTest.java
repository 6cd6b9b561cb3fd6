package io.tcpsight.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * "Unknown is empty" (docs/architecture.md): no public instance method of a public class returns
 * a literal null; a value that may be unknown is an Optional. Static converters may pass a null
 * through ({@code OptionalValues.orNull}, an address of no address). Read from the compiled classes,
 * so a {@code return null} anywhere in such a method is caught; a field that holds null and is
 * returned as it is stays the reviewer's to see.
 */
class NoNullReturnTest {
    private static final Path CLASSES = Paths.get("target/classes");

    @Test
    void noPublicInstanceMethodReturnsALiteralNull() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(CLASSES.resolve("io/tcpsight"))) {
            for (Path file :
                    (Iterable<Path>) files.filter(path -> path.toString().endsWith(".class"))::iterator) {
                try (InputStream in = Files.newInputStream(file)) {
                    new ClassReader(in).accept(new NullReturns(found), ClassReader.SKIP_FRAMES);
                }
            }
        }
        assertEquals(List.of(), found, "public methods that return null; return an Optional instead");
    }

    @Test
    void theScanFindsALiteralNull() throws IOException {
        List<String> found = new ArrayList<>();
        String name = Sample.class.getName().replace('.', '/') + ".class";
        String sample = Sample.class.getName().replace('$', '.');
        try (InputStream in = NoNullReturnTest.class.getClassLoader().getResourceAsStream(name)) {
            new ClassReader(in).accept(new NullReturns(found), ClassReader.SKIP_FRAMES);
        }
        assertTrue(found.contains(sample + ".nothing"), found.toString());
        assertEquals(1, found.size(), found.toString());
    }

    /** One public method that returns null and one that does not. */
    public static final class Sample {
        public String nothing() {
            return null;
        }

        public String something() {
            return "";
        }
    }

    private static final class NullReturns extends ClassVisitor {
        private final List<String> found;
        private String className;
        private boolean publicClass;

        NullReturns(List<String> found) {
            super(Opcodes.ASM9);
            this.found = found;
        }

        @Override
        public void visit(
                int version, int access, String name, String signature, String superName, String[] interfaces) {
            className = name.replace('/', '.');
            publicClass = (access & Opcodes.ACC_PUBLIC) != 0;
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            boolean checked = publicClass
                    && (access & Opcodes.ACC_PUBLIC) != 0
                    && (access & Opcodes.ACC_STATIC) == 0
                    && (access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) == 0
                    && Type.getReturnType(descriptor).getSort() >= Type.ARRAY;
            if (!checked) {
                return null;
            }
            return new MethodVisitor(Opcodes.ASM9) {
                private int previous = -1;

                @Override
                public void visitInsn(int opcode) {
                    if (opcode == Opcodes.ARETURN && previous == Opcodes.ACONST_NULL) {
                        String method = className.replace('$', '.') + "." + name;
                        if (!found.contains(method)) {
                            found.add(method);
                        }
                    }
                    previous = opcode;
                }

                @Override
                public void visitVarInsn(int opcode, int index) {
                    previous = opcode;
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String field, String fieldDescriptor) {
                    previous = opcode;
                }

                @Override
                public void visitMethodInsn(
                        int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                    previous = opcode;
                }

                @Override
                public void visitJumpInsn(int opcode, Label label) {
                    previous = opcode;
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    previous = opcode;
                }

                @Override
                public void visitLdcInsn(Object value) {
                    previous = Opcodes.LDC;
                }

                @Override
                public void visitIntInsn(int opcode, int operand) {
                    previous = opcode;
                }
            };
        }
    }
}
