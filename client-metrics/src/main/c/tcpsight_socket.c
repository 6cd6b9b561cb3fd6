#include "tcpsight_socket.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

int tcpsight_tcp_info(int fd, void *out, int capacity) {
    socklen_t len = (socklen_t) capacity;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, out, &len) != 0) {
        return -errno;
    }
    return (int) len;
}

void tcpsight_sample_batch(const int32_t *fds, int count, unsigned char *records) {
    for (int i = 0; i < count; i++) {
        unsigned char *record = records + (size_t) i * TCPSIGHT_RECORD_STRIDE;
        int32_t status = tcpsight_tcp_info(fds[i], record + TCPSIGHT_RECORD_HEADER,
                                           TCPSIGHT_INFO_CAPACITY);
        memcpy(record, &status, sizeof status);
    }
}

static int int_option(int fd, int level, int name, int32_t *out) {
    int value = 0;
    socklen_t len = sizeof value;
    if (getsockopt(fd, level, name, &value, &len) != 0) {
        return -errno;
    }
    *out = value;
    return 0;
}

int tcpsight_socket_state(int fd, int32_t *out) {
    int rc;
    if ((rc = int_option(fd, SOL_SOCKET, SO_RCVBUF, &out[TCPSIGHT_STATE_RCVBUF])) != 0) return rc;
    if ((rc = int_option(fd, SOL_SOCKET, SO_SNDBUF, &out[TCPSIGHT_STATE_SNDBUF])) != 0) return rc;
    if ((rc = int_option(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &out[TCPSIGHT_STATE_WINDOW_CLAMP])) != 0) return rc;
    if ((rc = int_option(fd, IPPROTO_TCP, TCP_MAXSEG, &out[TCPSIGHT_STATE_MAXSEG])) != 0) return rc;
    return int_option(fd, IPPROTO_TCP, TCP_NODELAY, &out[TCPSIGHT_STATE_NODELAY]);
}

int tcpsight_get_congestion(int fd, char *out, int capacity) {
    if (capacity < 1) {
        return -EINVAL;
    }
    memset(out, 0, (size_t) capacity);
    socklen_t len = (socklen_t) (capacity - 1);
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, out, &len) != 0) {
        return -errno;
    }
    return (int) strnlen(out, (size_t) capacity - 1);
}

int tcpsight_set_congestion(int fd, const char *name, int length) {
    if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t) length) != 0) {
        return -errno;
    }
    return 0;
}
