package io.tcpsight.agent.internal.hooks;

import io.tcpsight.agent.internal.hooks.HookPoint.Where;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Every hook the agent puts into Kafka, and everything else those hooks rely on, in one place.
 * Each call site passes only JDK types (Object, String, SocketChannel, boolean) and adds no
 * branch, so the class's stack map frames stay valid as they are (see KafkaHookTransformer).
 */
final class HookPoints {
    /** The Kafka classes whose methods are hook points, in the class format's internal names. */
    static final String SELECTOR = "org/apache/kafka/common/network/Selector";

    static final String KAFKA_CHANNEL = "org/apache/kafka/common/network/KafkaChannel";
    static final String NETWORK_CLIENT = "org/apache/kafka/clients/NetworkClient";
    static final String REQUEST_CONTEXT = "org/apache/kafka/common/requests/RequestContext";
    private static final String HOOKS = Type.getInternalName(Hooks.class);
    private static final String STRING = "Ljava/lang/String;";
    private static final String SELECTABLE = "Lorg/apache/kafka/common/network/Selectable;";
    static final String SELECTION_KEY = "selectionKey()Ljava/nio/channels/SelectionKey;";

    static final List<HookPoint> ALL = List.of(
            HookPoint.method(
                    SELECTOR,
                    "connect",
                    "(Ljava/lang/String;Ljava/net/InetSocketAddress;II)V",
                    Where.ENTRY,
                    (mv, descriptor) ->
                            mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "connectStarting", "()V", false)),
            HookPoint.method(
                    SELECTOR,
                    "registerChannel",
                    "(Ljava/lang/String;Ljava/nio/channels/SocketChannel;I*",
                    Where.BEFORE_RETURN,
                    (mv, descriptor) -> {
                        mv.visitVarInsn(Opcodes.ALOAD, 0);
                        mv.visitVarInsn(Opcodes.ALOAD, 1);
                        mv.visitVarInsn(Opcodes.ALOAD, 2);
                        mv.visitMethodInsn(
                                Opcodes.INVOKESTATIC,
                                HOOKS,
                                "registered",
                                "(Ljava/lang/Object;Ljava/lang/String;Ljava/nio/channels/SocketChannel;)V",
                                false);
                    }),
            HookPoint.method(SELECTOR, "doClose", "(L" + KAFKA_CHANNEL + ";Z)V", Where.ENTRY, (mv, descriptor) -> {
                mv.visitVarInsn(Opcodes.ALOAD, 1);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "closingChannel", "(Ljava/lang/Object;)V", false);
            }),
            // the boolean being returned is duplicated and passed on with the channel
            HookPoint.method(KAFKA_CHANNEL, "finishConnect", "()Z", Where.BEFORE_RETURN, (mv, descriptor) -> {
                mv.visitInsn(Opcodes.DUP);
                mv.visitVarInsn(Opcodes.ALOAD, 0);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "finishedConnect", "(ZLjava/lang/Object;)V", false);
            }),
            HookPoint.constructorTaking(NETWORK_CLIENT, SELECTABLE, (mv, descriptor) -> {
                int clientId = HookPoint.slotOfFirst(descriptor, STRING);
                mv.visitVarInsn(Opcodes.ALOAD, HookPoint.slotOfFirst(descriptor, SELECTABLE));
                if (clientId < 0) {
                    mv.visitInsn(Opcodes.ACONST_NULL);
                } else {
                    mv.visitVarInsn(Opcodes.ALOAD, clientId);
                }
                mv.visitMethodInsn(
                        Opcodes.INVOKESTATIC, HOOKS, "networkClient", "(Ljava/lang/Object;Ljava/lang/String;)V", false);
            }),
            // the parsed request (a Fetch carries the sizes its client asked for) and the connection it came on
            HookPoint.method(
                    REQUEST_CONTEXT,
                    "parseRequest",
                    "(Ljava/nio/ByteBuffer;)Lorg/apache/kafka/common/requests/RequestAndSize;",
                    Where.BEFORE_RETURN,
                    (mv, descriptor) -> {
                        mv.visitInsn(Opcodes.DUP);
                        mv.visitVarInsn(Opcodes.ALOAD, 0);
                        mv.visitFieldInsn(Opcodes.GETFIELD, REQUEST_CONTEXT, "connectionId", STRING);
                        mv.visitMethodInsn(
                                Opcodes.INVOKESTATIC,
                                HOOKS,
                                "parsedRequest",
                                "(Ljava/lang/Object;Ljava/lang/String;)V",
                                false);
                    }),
            HookPoint.constructorTaking(REQUEST_CONTEXT, "", (mv, descriptor) -> {
                mv.visitVarInsn(Opcodes.ALOAD, 0);
                mv.visitFieldInsn(Opcodes.GETFIELD, REQUEST_CONTEXT, "connectionId", STRING);
                mv.visitVarInsn(Opcodes.ALOAD, 0);
                mv.visitMethodInsn(
                        Opcodes.INVOKESTATIC, HOOKS, "request", "(Ljava/lang/String;Ljava/lang/Object;)V", false);
            }));

    /** What a class's hooks rely on beyond its hooked methods. */
    static final class Requirement {
        enum Kind {
            /** An instance field of this descriptor, read by a call site. */
            FIELD,
            /** A public instance field, read by reflection. */
            PUBLIC_FIELD,
            /** A public method (name and descriptor), called by a hook. */
            PUBLIC_METHOD
        }

        /** The hooked class whose hooks rely on it. */
        final String hooked;
        /** The class that has the member: the hooked class, or another read as a resource. */
        final String owner;

        final Kind kind;
        final String member;
        final String descriptor;

        Requirement(String hooked, String owner, Kind kind, String member, String descriptor) {
            this.hooked = hooked;
            this.owner = owner;
            this.kind = kind;
            this.member = member;
            this.descriptor = descriptor;
        }
    }

    static final List<Requirement> REQUIREMENTS = requirements();

    private static List<Requirement> requirements() {
        List<Requirement> all = new ArrayList<>();
        // the close hook finds the socket through KafkaChannel.selectionKey()
        all.add(new Requirement(SELECTOR, KAFKA_CHANNEL, Requirement.Kind.PUBLIC_METHOD, SELECTION_KEY, null));
        all.add(new Requirement(KAFKA_CHANNEL, KAFKA_CHANNEL, Requirement.Kind.PUBLIC_METHOD, SELECTION_KEY, null));
        // the request hook's call site reads connectionId; the agent then reads the public fields by reflection
        all.add(new Requirement(REQUEST_CONTEXT, REQUEST_CONTEXT, Requirement.Kind.FIELD, "connectionId", STRING));
        for (String field : RequestContextReads.REQUIRED) {
            all.add(new Requirement(REQUEST_CONTEXT, REQUEST_CONTEXT, Requirement.Kind.PUBLIC_FIELD, field, null));
        }
        return List.copyOf(all);
    }

    /** The points of one class. */
    static List<HookPoint> of(String owner) {
        return ALL.stream().filter(point -> point.owner.equals(owner)).collect(Collectors.toList());
    }

    static List<Requirement> requirementsOf(String hooked) {
        List<Requirement> mine = new ArrayList<>();
        for (Requirement requirement : REQUIREMENTS) {
            if (requirement.hooked.equals(hooked)) {
                mine.add(requirement);
            }
        }
        return mine;
    }

    private HookPoints() {}
}
