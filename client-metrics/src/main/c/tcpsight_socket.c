#include "tcpsight_socket.h"

#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
        int64_t inode = status < 0 ? 0 : tcpsight_socket_inode(fds[i]);
        uint32_t low = inode > 0 ? (uint32_t) inode : 0;
        memcpy(record + sizeof status, &low, sizeof low);
        int32_t queues[2] = {-ENODATA, -ENODATA}; /* not asked: tcpsight_queue_batch reads them */
        memcpy(record + sizeof status + sizeof low, queues, sizeof queues);
    }
}

void tcpsight_queue_batch(const int32_t *fds, int count, int32_t *queues) {
    for (int i = 0; i < count; i++) {
        int unread = 0;
        int unacked = 0;
        queues[2 * i] = ioctl(fds[i], SIOCINQ, &unread) == 0 ? unread : -errno;
        queues[2 * i + 1] = ioctl(fds[i], SIOCOUTQ, &unacked) == 0 ? unacked : -errno;
    }
}

/* fstat(2) as the kernel's call: glibc 2.33 made fstat a symbol of its own (fstat@GLIBC_2.33), which
 * a library built here then needs, and glibc before 2.33 (RHEL 8, Ubuntu 20.04) refuses to load it.
 * On x86_64 and aarch64 the libc's struct stat is the kernel's, in glibc and in musl alike. */
int64_t tcpsight_socket_inode(int fd) {
    struct stat status;
    if (syscall(SYS_fstat, fd, &status) != 0) {
        return -errno;
    }
    if (!S_ISSOCK(status.st_mode)) {
        return -ENOTSOCK;
    }
    return (int64_t) status.st_ino;
}

int64_t tcpsight_socket_drops(int fd) {
#ifdef SO_MEMINFO
    uint32_t meminfo[SK_MEMINFO_VARS];
    memset(meminfo, 0, sizeof meminfo);
    socklen_t len = sizeof meminfo;
    if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, meminfo, &len) != 0) {
        return -errno;
    }
    if (len < (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t)) {
        return -ENODATA;
    }
    return (int64_t) meminfo[SK_MEMINFO_DROPS];
#else
    (void) fd;
    return -ENOPROTOOPT;
#endif
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

static int copy_address(const struct sockaddr_storage *address, int *family, int32_t *port, unsigned char *bytes) {
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *) address;
        *family = 4;
        *port = ntohs(v4->sin_port);
        memcpy(bytes, &v4->sin_addr, 4);
        return 0;
    }
    if (address->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *) address;
        *family = 6;
        *port = ntohs(v6->sin6_port);
        memcpy(bytes, &v6->sin6_addr, 16);
        return 0;
    }
    return -EAFNOSUPPORT;
}

int tcpsight_socket_addresses(int fd, unsigned char *out) {
    struct sockaddr_storage local, remote;
    socklen_t local_len = sizeof local, remote_len = sizeof remote;
    int32_t header[4] = {0, 0, 0, 0};
    int family = 0, peer_family = 0;
    memset(out, 0, TCPSIGHT_ADDRESSES_BYTES);
    if (getsockname(fd, (struct sockaddr *) &local, &local_len) != 0) {
        return -errno;
    }
    int rc = copy_address(&local, &family, &header[1], out + 16);
    if (rc != 0) {
        return rc;
    }
    if (getpeername(fd, (struct sockaddr *) &remote, &remote_len) == 0) {
        rc = copy_address(&remote, &peer_family, &header[2], out + 32);
        if (rc != 0) {
            return rc;
        }
    } else if (errno != ENOTCONN) {
        return -errno;
    }
    header[0] = family;
    memcpy(out, header, sizeof header);
    return 0;
}

int tcpsight_errno_message(int error, char *out, int capacity) {
    /* The XSI strerror_r (int): glibc's without _GNU_SOURCE (__xpg_strerror_r), musl's only one.
     * The GNU one returns a char *, and musl answers the same symbol with the XSI int. */
    int rc = strerror_r(error, out, (size_t) capacity);
    if (rc != 0 || out[0] == '\0') {
        return -(rc > 0 ? rc : EINVAL);
    }
    return 0;
}
