/*
 * The socket calls tcpsight needs, in plain C so they can be tested under valgrind
 * without a JVM. Every function reports failure as a negative errno and never aborts.
 * Decoding lives in Java: these functions only copy kernel bytes out.
 */
#ifndef TCPSIGHT_SOCKET_H
#define TCPSIGHT_SOCKET_H

#include <stdint.h>

/* Bytes of struct tcp_info requested per socket. 280 is the 6.18 size; a newer kernel
 * copies only this much, an older one less (the returned length says how much). */
#define TCPSIGHT_INFO_CAPACITY 280

/* One batch record: int32 status (bytes filled, or -errno), uint32 socket inode (0 when
 * fstat failed), int32 bytes received and not yet read by the application (SIOCINQ), int32
 * bytes written and not yet acknowledged (SIOCOUTQ), each -errno when unknown, then the
 * tcp_info bytes. Java reads the same layout. The inode tells a socket from a later one that
 * reused its descriptor; socket inodes are 32-bit (get_next_ino). The queues turn the kernel's
 * byte counts into what the application has read and written, which a client counts too. */
#define TCPSIGHT_RECORD_HEADER 16
#define TCPSIGHT_RECORD_STRIDE (TCPSIGHT_RECORD_HEADER + TCPSIGHT_INFO_CAPACITY)

/* Indices into the socket-state array. */
enum {
    TCPSIGHT_STATE_RCVBUF = 0,
    TCPSIGHT_STATE_SNDBUF,
    TCPSIGHT_STATE_WINDOW_CLAMP,
    TCPSIGHT_STATE_MAXSEG,
    TCPSIGHT_STATE_NODELAY,
    TCPSIGHT_STATE_COUNT
};

/* Copies tcp_info of fd into out (capacity bytes). Returns the bytes filled or -errno. */
int tcpsight_tcp_info(int fd, void *out, int capacity);

/* Samples count fds into records of TCPSIGHT_RECORD_STRIDE bytes: status, inode, tcp_info. Never
 * fails as a whole: each record carries its own status. The record's two queue slots say -ENODATA. */
void tcpsight_sample_batch(const int32_t *fds, int count, unsigned char *records);

/* The receive queue's unread bytes (SIOCINQ) and the send queue's unacknowledged bytes (SIOCOUTQ)
 * of count fds, two int32 per fd in queues: the value or -errno. */
void tcpsight_queue_batch(const int32_t *fds, int count, int32_t *queues);

/* Fills out[TCPSIGHT_STATE_COUNT]. Returns 0 or -errno of the first option that failed. */
int tcpsight_socket_state(int fd, int32_t *out);

/* Writes the congestion control name (NUL-terminated, at most capacity bytes).
 * Returns its length or -errno. */
int tcpsight_get_congestion(int fd, char *out, int capacity);

/* Addresses of a socket, for the census: int32 family (4 or 6), int32 local port, int32 remote
 * port, int32 reserved, 16 bytes local address, 16 bytes remote address (IPv4 in the first 4).
 * A socket without a peer (listening) has remote port 0. */
#define TCPSIGHT_ADDRESSES_BYTES 48

/* The inode of the socket on fd, or -errno (ENOTSOCK when fd is no socket); the batch's inode word. */
int64_t tcpsight_socket_inode(int fd);

/* Fills out[TCPSIGHT_ADDRESSES_BYTES]. Returns 0 or -errno (EAFNOSUPPORT for non-IP sockets). */
int tcpsight_socket_addresses(int fd, unsigned char *out);

/* The socket's own drop count (SO_MEMINFO's SK_MEMINFO_DROPS, sk_drops): on a listening socket,
 * the SYNs and handshake ACKs dropped because its accept queue was full (tcp_listendrop), which
 * the namespace's ListenOverflows counts for all listeners together. Returns the count (>= 0) or
 * -errno: ENOPROTOOPT without SO_MEMINFO, ENODATA when the kernel's meminfo has no drops word. */
int64_t tcpsight_socket_drops(int fd);

/* Sets the congestion control by name. Returns 0 or -errno (ENOENT: unknown algorithm,
 * EPERM: not allowed for this process). */
int tcpsight_set_congestion(int fd, const char *name, int length);

/* The C library's text for error (strerror_r, XSI), NUL-terminated within capacity bytes.
 * Returns 0, or -errno (EINVAL: no text for it, ERANGE: capacity too small). */
int tcpsight_errno_message(int error, char *out, int capacity);

#endif
