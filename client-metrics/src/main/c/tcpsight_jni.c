/*
 * JNI wrappers around tcpsight_socket.c. Deliberately dumb: argument checks, copies and
 * nothing else. Errors come back as negative errno values for Java to describe.
 */
#include <errno.h>
#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include "io_tcpsight_internal_tcp_NativeTcp.h"
#include "tcpsight_host.h"
#include "tcpsight_socket.h"

#define CONGESTION_NAME_CAPACITY 16
#define DEVICE_NAME_CAPACITY 16

static void throw_illegal_argument(JNIEnv *env, const char *message) {
    jclass cls = (*env)->FindClass(env, "java/lang/IllegalArgumentException");
    if (cls != NULL) {
        (*env)->ThrowNew(env, cls, message);
    }
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_recordStride(JNIEnv *env, jclass cls) {
    return TCPSIGHT_RECORD_STRIDE;
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_infoCapacity(JNIEnv *env, jclass cls) {
    return TCPSIGHT_INFO_CAPACITY;
}

/* NIO socket channels keep their descriptor in an int field named fdVal. JNI field access
 * is not subject to module encapsulation, so no --add-opens is needed. */
JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_fileDescriptor(JNIEnv *env, jclass cls, jobject channel) {
    if (channel == NULL) {
        return -1;
    }
    jclass channel_class = (*env)->GetObjectClass(env, channel);
    jfieldID field = (*env)->GetFieldID(env, channel_class, "fdVal", "I");
    if (field == NULL) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    return (*env)->GetIntField(env, channel, field);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_tcpInfo(JNIEnv *env, jclass cls, jint fd, jbyteArray out) {
    unsigned char buffer[TCPSIGHT_INFO_CAPACITY];
    jsize length = (*env)->GetArrayLength(env, out);
    if (length < TCPSIGHT_INFO_CAPACITY) {
        throw_illegal_argument(env, "tcp_info array is smaller than the native capacity");
        return -EINVAL;
    }
    int filled = tcpsight_tcp_info(fd, buffer, TCPSIGHT_INFO_CAPACITY);
    if (filled > 0) {
        (*env)->SetByteArrayRegion(env, out, 0, filled, (const jbyte *) buffer);
    }
    return filled;
}

JNIEXPORT void JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_sampleBatch(JNIEnv *env, jclass cls, jobject fds, jint count, jobject records) {
    const int32_t *fd_array = (*env)->GetDirectBufferAddress(env, fds);
    unsigned char *record_array = (*env)->GetDirectBufferAddress(env, records);
    if (fd_array == NULL || record_array == NULL) {
        throw_illegal_argument(env, "sampleBatch needs direct buffers");
        return;
    }
    if (count < 0
        || (*env)->GetDirectBufferCapacity(env, fds) < (jlong) count * 4
        || (*env)->GetDirectBufferCapacity(env, records) < (jlong) count * TCPSIGHT_RECORD_STRIDE) {
        throw_illegal_argument(env, "sampleBatch buffers are smaller than count entries");
        return;
    }
    tcpsight_sample_batch(fd_array, count, record_array);
}

JNIEXPORT void JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_queueBatch(JNIEnv *env, jclass cls, jobject fds, jint count, jobject queues) {
    const int32_t *fd_array = (*env)->GetDirectBufferAddress(env, fds);
    int32_t *queue_array = (*env)->GetDirectBufferAddress(env, queues);
    if (fd_array == NULL || queue_array == NULL) {
        throw_illegal_argument(env, "queueBatch needs direct buffers");
        return;
    }
    if (count < 0
        || (*env)->GetDirectBufferCapacity(env, fds) < (jlong) count * 4
        || (*env)->GetDirectBufferCapacity(env, queues) < (jlong) count * 8) {
        throw_illegal_argument(env, "queueBatch buffers are smaller than count entries");
        return;
    }
    tcpsight_queue_batch(fd_array, count, queue_array);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_socketState(JNIEnv *env, jclass cls, jint fd, jintArray out) {
    int32_t values[TCPSIGHT_STATE_COUNT];
    if ((*env)->GetArrayLength(env, out) < TCPSIGHT_STATE_COUNT) {
        throw_illegal_argument(env, "socket state array is too small");
        return -EINVAL;
    }
    int rc = tcpsight_socket_state(fd, values);
    if (rc == 0) {
        (*env)->SetIntArrayRegion(env, out, 0, TCPSIGHT_STATE_COUNT, (const jint *) values);
    }
    return rc;
}

JNIEXPORT jlong JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_socketDrops(JNIEnv *env, jclass cls, jint fd) {
    return (jlong) tcpsight_socket_drops(fd);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_congestion(JNIEnv *env, jclass cls, jint fd, jbyteArray out) {
    char name[CONGESTION_NAME_CAPACITY + 1];
    if ((*env)->GetArrayLength(env, out) < CONGESTION_NAME_CAPACITY) {
        throw_illegal_argument(env, "congestion name array is too small");
        return -EINVAL;
    }
    int length = tcpsight_get_congestion(fd, name, sizeof name);
    if (length > 0) {
        (*env)->SetByteArrayRegion(env, out, 0, length, (const jbyte *) name);
    }
    return length;
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_setCongestion(JNIEnv *env, jclass cls, jint fd, jbyteArray name) {
    char buffer[CONGESTION_NAME_CAPACITY];
    jsize length = (*env)->GetArrayLength(env, name);
    if (length < 1 || length >= CONGESTION_NAME_CAPACITY) {
        return -EINVAL;
    }
    (*env)->GetByteArrayRegion(env, name, 0, length, (jbyte *) buffer);
    return tcpsight_set_congestion(fd, buffer, length);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_socketAddresses(JNIEnv *env, jclass cls, jint fd, jbyteArray out) {
    unsigned char buffer[TCPSIGHT_ADDRESSES_BYTES];
    if ((*env)->GetArrayLength(env, out) < TCPSIGHT_ADDRESSES_BYTES) {
        throw_illegal_argument(env, "address array is too small");
        return -EINVAL;
    }
    int rc = tcpsight_socket_addresses(fd, buffer);
    if (rc == 0) {
        (*env)->SetByteArrayRegion(env, out, 0, TCPSIGHT_ADDRESSES_BYTES, (const jbyte *) buffer);
    }
    return rc;
}

JNIEXPORT jstring JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_errnoMessage(JNIEnv *env, jclass cls, jint error) {
    char message[256];
    return tcpsight_errno_message(error, message, sizeof message) == 0 ? (*env)->NewStringUTF(env, message) : NULL;
}

/* Runs a host call into a native buffer and copies back only the bytes it filled: the Java
 * array is large enough for a big host, and a whole-array copy each round would be waste. */
static jint host_call_into(JNIEnv *env, jbyteArray out, const char *device,
                           int (*call)(const char *, unsigned char *, int)) {
    jsize capacity = (*env)->GetArrayLength(env, out);
    unsigned char *buffer = malloc((size_t) capacity);
    if (buffer == NULL) {
        return -ENOMEM;
    }
    int filled = call(device, buffer, capacity);
    if (filled > 0) {
        (*env)->SetByteArrayRegion(env, out, 0, filled, (const jbyte *) buffer);
    }
    free(buffer);
    return filled;
}

static int qdisc_dump(const char *unused, unsigned char *out, int capacity) {
    return tcpsight_qdisc_dump(out, capacity);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_qdiscDump(JNIEnv *env, jclass cls, jbyteArray out) {
    return host_call_into(env, out, NULL, qdisc_dump);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_ethtoolStats(JNIEnv *env, jclass cls, jbyteArray device, jbyteArray out) {
    char name[DEVICE_NAME_CAPACITY];
    jsize length = (*env)->GetArrayLength(env, device);
    if (length < 1 || length >= DEVICE_NAME_CAPACITY) {
        return -EINVAL;
    }
    (*env)->GetByteArrayRegion(env, device, 0, length, (jbyte *) name);
    name[length] = '\0';
    return host_call_into(env, out, name, tcpsight_ethtool_stats);
}

JNIEXPORT jint JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_listen(JNIEnv *env, jclass cls, jint fd, jint backlog) {
    return tcpsight_listen(fd, backlog);
}

/*
 * Defines one class in the bootstrap class loader (DefineClass with a null loader), for the broker
 * agent's hooks: appending a jar to the bootstrap class path instead turns class-data sharing of
 * the application's classes off, and the JVM prints a warning at start. Returns the class, or NULL
 * with the JVM's exception pending.
 */
JNIEXPORT jclass JNICALL Java_io_tcpsight_internal_tcp_NativeTcp_defineBootClass(JNIEnv *env, jclass cls, jstring name, jbyteArray class_file) {
    if (name == NULL || class_file == NULL) {
        throw_illegal_argument(env, "a class name and its class file are needed");
        return NULL;
    }
    const char *internal_name = (*env)->GetStringUTFChars(env, name, NULL);
    if (internal_name == NULL) {
        return NULL;
    }
    jsize length = (*env)->GetArrayLength(env, class_file);
    jbyte *bytes = (*env)->GetByteArrayElements(env, class_file, NULL);
    if (bytes == NULL) {
        (*env)->ReleaseStringUTFChars(env, name, internal_name);
        return NULL;
    }
    jclass defined = (*env)->DefineClass(env, internal_name, NULL, bytes, length);
    (*env)->ReleaseByteArrayElements(env, class_file, bytes, JNI_ABORT);
    (*env)->ReleaseStringUTFChars(env, name, internal_name);
    return defined;
}

/*
 * The broker agent relocates tcpsight's classes under io.tcpsight.shaded, and exported JNI
 * symbols only match the original class name. So the library also registers its functions
 * for the relocated name, when the loading class loader has that class.
 */
static const char *const RELOCATED_CLASS = "io/tcpsight/shaded/tcp/NativeTcp";

static JNINativeMethod METHODS[] = {
    {"recordStride", "()I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_recordStride},
    {"infoCapacity", "()I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_infoCapacity},
    {"fileDescriptor", "(Ljava/lang/Object;)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_fileDescriptor},
    {"tcpInfo", "(I[B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_tcpInfo},
    {"sampleBatch", "(Ljava/nio/ByteBuffer;ILjava/nio/ByteBuffer;)V", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_sampleBatch},
    {"queueBatch", "(Ljava/nio/ByteBuffer;ILjava/nio/ByteBuffer;)V", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_queueBatch},
    {"socketState", "(I[I)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_socketState},
    {"congestion", "(I[B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_congestion},
    {"setCongestion", "(I[B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_setCongestion},
    {"socketAddresses", "(I[B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_socketAddresses},
    {"errnoMessage", "(I)Ljava/lang/String;", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_errnoMessage},
    {"qdiscDump", "([B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_qdiscDump},
    {"ethtoolStats", "([B[B)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_ethtoolStats},
    {"listen", "(II)I", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_listen},
    {"socketDrops", "(I)J", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_socketDrops},
    {"defineBootClass", "(Ljava/lang/String;[B)Ljava/lang/Class;", (void *) Java_io_tcpsight_internal_tcp_NativeTcp_defineBootClass},
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_VERSION_1_8;
    }
    jclass relocated = (*env)->FindClass(env, RELOCATED_CLASS);
    if (relocated == NULL) {
        (*env)->ExceptionClear(env);
        return JNI_VERSION_1_8;
    }
    if ((*env)->RegisterNatives(env, relocated, METHODS, sizeof METHODS / sizeof METHODS[0]) != 0) {
        (*env)->ExceptionClear(env);
    }
    return JNI_VERSION_1_8;
}
