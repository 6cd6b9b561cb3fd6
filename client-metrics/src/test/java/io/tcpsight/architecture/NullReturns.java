package io.tcpsight.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * "Unknown is empty" (docs/conventions.md), checked on the class files: the public instance
 * methods of public classes that may return null. A value returned is traced back through local
 * variables and casts to what made it: a null literal on any path (a ternary's branch too), or,
 * returned as it is, a field of the same class that may hold null (one a null is stored into
 * anywhere in the class, or one no constructor sets and that is not final). A field read into a
 * local is not followed: the method may have checked it, and the trace does not follow checks. Static converters may pass a null through
 * ({@code OptionalValues.orNull}). A null handed in as an argument and returned stays the
 * reviewer's to see. A method's result returned as it is counts where it may be null: a map's
 * {@code get} (null for a missing key) and {@code Optional.orElse(null)}; other calls are taken to
 * answer non-null, as the rule asks of them.
 */
public final class NullReturns {
    private NullReturns() {}

    /** "package.Class.method" for each such method under {@code classes}, sorted. */
    public static List<String> in(Path classes) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file :
                    (Iterable<Path>) files.filter(path -> path.toString().endsWith(".class"))::iterator) {
                try (InputStream in = Files.newInputStream(file)) {
                    found.addAll(in(in));
                }
            }
        }
        found.sort(null);
        return found;
    }

    /** The methods of one class file that may return null. */
    public static List<String> in(InputStream classFile) throws IOException {
        ClassNode type = new ClassNode();
        new ClassReader(classFile).accept(type, ClassReader.SKIP_FRAMES);
        List<String> found = new ArrayList<>();
        if ((type.access & Opcodes.ACC_PUBLIC) == 0) {
            return found;
        }
        Map<MethodNode, Frame<SourceValue>[]> frames = new HashMap<>();
        for (MethodNode method : type.methods) {
            frames.put(method, frames(type.name, method));
        }
        Set<String> nullableFields = nullableFields(type, frames);
        for (MethodNode method : type.methods) {
            if (checked(method) && mayReturnNull(type.name, method, frames.get(method), nullableFields)) {
                String name = type.name.replace('/', '.').replace('$', '.') + "." + method.name;
                if (!found.contains(name)) {
                    found.add(name);
                }
            }
        }
        found.sort(null);
        return found;
    }

    private static boolean checked(MethodNode method) {
        return (method.access & Opcodes.ACC_PUBLIC) != 0
                && (method.access & (Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) == 0
                && (method.access & Opcodes.ACC_ABSTRACT) == 0
                && Type.getReturnType(method.desc).getSort() >= Type.ARRAY;
    }

    /** Fields a null is stored into, or that start null: not final and set by no constructor. */
    private static Set<String> nullableFields(ClassNode type, Map<MethodNode, Frame<SourceValue>[]> framesOf) {
        Set<String> nullable = new HashSet<>();
        Set<String> setInConstructors = new HashSet<>();
        for (MethodNode method : type.methods) {
            Frame<SourceValue>[] frames = framesOf.get(method);
            for (int i = 0; i < method.instructions.size(); i++) {
                AbstractInsnNode insn = method.instructions.get(i);
                if ((insn.getOpcode() == Opcodes.PUTFIELD || insn.getOpcode() == Opcodes.PUTSTATIC)
                        && ((FieldInsnNode) insn).owner.equals(type.name)) {
                    String field = ((FieldInsnNode) insn).name;
                    if (method.name.equals("<init>") || method.name.equals("<clinit>")) {
                        setInConstructors.add(field);
                    }
                    Frame<SourceValue> frame = frames[i];
                    if (frame != null
                            && madeFromNull(type.name, method, frames, top(frame), Set.of(), new HashSet<>())) {
                        nullable.add(field);
                    }
                }
            }
        }
        for (FieldNode field : type.fields) {
            boolean reference = Type.getType(field.desc).getSort() >= Type.ARRAY;
            if (reference
                    && (field.access & Opcodes.ACC_FINAL) == 0
                    && (field.access & Opcodes.ACC_SYNTHETIC) == 0
                    && !setInConstructors.contains(field.name)) {
                nullable.add(field.name);
            }
        }
        return nullable;
    }

    private static boolean mayReturnNull(
            String owner, MethodNode method, Frame<SourceValue>[] frames, Set<String> nullableFields) {
        for (int i = 0; i < method.instructions.size(); i++) {
            if (method.instructions.get(i).getOpcode() == Opcodes.ARETURN && frames[i] != null) {
                if (madeFromNull(owner, method, frames, top(frames[i]), nullableFields, new HashSet<>())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static SourceValue top(Frame<SourceValue> frame) {
        return frame.getStack(frame.getStackSize() - 1);
    }

    /** Whether any instruction that may have made this value is a null literal or a read of a nullable field. */
    private static boolean madeFromNull(
            String owner,
            MethodNode method,
            Frame<SourceValue>[] frames,
            SourceValue value,
            Set<String> nullableFields,
            Set<AbstractInsnNode> seen) {
        return madeFromNull(owner, method, frames, value, nullableFields, seen, true);
    }

    /** @param direct whether the value is still what was read, not a local that holds it */
    private static boolean madeFromNull(
            String owner,
            MethodNode method,
            Frame<SourceValue>[] frames,
            SourceValue value,
            Set<String> nullableFields,
            Set<AbstractInsnNode> seen,
            boolean direct) {
        for (AbstractInsnNode insn : value.insns) {
            if (!seen.add(insn)) {
                continue;
            }
            int opcode = insn.getOpcode();
            int index = method.instructions.indexOf(insn);
            if (opcode == Opcodes.ACONST_NULL) {
                return true;
            }
            if (direct
                    && (opcode == Opcodes.GETFIELD || opcode == Opcodes.GETSTATIC)
                    && ((FieldInsnNode) insn).owner.equals(owner)
                    && nullableFields.contains(((FieldInsnNode) insn).name)) {
                return true;
            }
            // a method result that may be null, returned as it is: Map.get, Optional.orElse(null)
            if (direct
                    && (opcode == Opcodes.INVOKEINTERFACE || opcode == Opcodes.INVOKEVIRTUAL)
                    && mayGiveNull(method, frames, (MethodInsnNode) insn, index, nullableFields, seen, owner)) {
                return true;
            }
            if (opcode == Opcodes.CHECKCAST && frames[index] != null) {
                if (madeFromNull(owner, method, frames, top(frames[index]), nullableFields, seen, direct)) {
                    return true;
                }
            }
            if (opcode == Opcodes.ALOAD && frames[index] != null) {
                SourceValue stored = frames[index].getLocal(((VarInsnNode) insn).var);
                if (madeFromNull(owner, method, frames, stored, nullableFields, seen, false)) {
                    return true;
                }
            }
            if (opcode == Opcodes.ASTORE && frames[index] != null) {
                if (madeFromNull(owner, method, frames, top(frames[index]), nullableFields, seen, false)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The maps of java.util whose get() answers null for a missing key. */
    private static final Set<String> MAPS = Set.of(
            "java/util/Map",
            "java/util/HashMap",
            "java/util/LinkedHashMap",
            "java/util/TreeMap",
            "java/util/SortedMap",
            "java/util/NavigableMap",
            "java/util/concurrent/ConcurrentMap",
            "java/util/concurrent/ConcurrentHashMap");

    /** Map.get (null for a missing key), or Optional.orElse with a null argument. */
    private static boolean mayGiveNull(
            MethodNode method,
            Frame<SourceValue>[] frames,
            MethodInsnNode call,
            int index,
            Set<String> nullableFields,
            Set<AbstractInsnNode> seen,
            String owner) {
        if (call.name.equals("get")
                && call.desc.equals("(Ljava/lang/Object;)Ljava/lang/Object;")
                && MAPS.contains(call.owner)) {
            return true;
        }
        return call.owner.equals("java/util/Optional")
                && call.name.equals("orElse")
                && frames[index] != null
                && madeFromNull(owner, method, frames, top(frames[index]), nullableFields, seen, true);
    }

    @SuppressWarnings("unchecked")
    private static Frame<SourceValue>[] frames(String owner, MethodNode method) {
        try {
            return new Analyzer<>(new SourceInterpreter()).analyze(owner, method);
        } catch (AnalyzerException unanalysable) {
            throw new IllegalStateException(owner + "." + method.name + ": " + unanalysable.getMessage(), unanalysable);
        }
    }
}
