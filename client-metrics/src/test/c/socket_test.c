/*
 * Exercises tcpsight_socket.c on real kernel sockets. The build runs it under valgrind, so
 * any invalid read/write or leak in the shim fails the build.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "tcpsight_host.h"
#include "tcpsight_socket.h"

static int failures = 0;

#define CHECK(condition, ...)                                   \
    do {                                                        \
        if (!(condition)) {                                     \
            failures++;                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
        }                                                       \
    } while (0)

static int loopback_listener(struct sockaddr_in *address) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof *address;
    if (fd < 0 || bind(fd, (struct sockaddr *) address, len) != 0 || listen(fd, 8) != 0
        || getsockname(fd, (struct sockaddr *) address, &len) != 0) {
        perror("listener");
        exit(2);
    }
    return fd;
}

static int32_t record_status(const unsigned char *records, int i) {
    int32_t status;
    memcpy(&status, records + (size_t) i * TCPSIGHT_RECORD_STRIDE, sizeof status);
    return status;
}

int main(void) {
    struct sockaddr_in address;
    int listener = loopback_listener(&address);
    int client = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(client, (struct sockaddr *) &address, sizeof address) != 0) {
        perror("connect");
        return 2;
    }
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
        perror("pipe");
        return 2;
    }

    unsigned char info[TCPSIGHT_INFO_CAPACITY];
    int filled = tcpsight_tcp_info(client, info, sizeof info);
    CHECK(filled >= 104, "client tcp_info filled %d bytes", filled);
    CHECK(info[0] == 1, "client state %d, expected ESTABLISHED", info[0]);

    filled = tcpsight_tcp_info(listener, info, sizeof info);
    uint32_t accept_queue, backlog;
    memcpy(&accept_queue, info + 24, 4);
    memcpy(&backlog, info + 28, 4);
    CHECK(info[0] == 10, "listener state %d, expected LISTEN", info[0]);
    CHECK(accept_queue == 1 && backlog == 8, "listener queue %u/%u, expected 1/8", accept_queue, backlog);

    int32_t fds[] = {client, listener, -1, 100000, udp, pipe_fds[0]};
    int count = (int) (sizeof fds / sizeof fds[0]);
    unsigned char *records = malloc((size_t) count * TCPSIGHT_RECORD_STRIDE);
    tcpsight_sample_batch(fds, count, records);
    CHECK(record_status(records, 0) > 0, "client status %d", record_status(records, 0));
    CHECK(record_status(records, 1) > 0, "listener status %d", record_status(records, 1));
    CHECK(record_status(records, 2) == -EBADF, "fd -1 status %d", record_status(records, 2));
    CHECK(record_status(records, 3) == -EBADF, "unopened fd status %d", record_status(records, 3));
    CHECK(record_status(records, 4) == -EOPNOTSUPP || record_status(records, 4) == -ENOPROTOOPT,
          "udp status %d", record_status(records, 4));
    CHECK(record_status(records, 5) == -ENOTSOCK, "pipe status %d", record_status(records, 5));
    struct stat client_stat;
    CHECK(fstat(client, &client_stat) == 0, "fstat client");
    uint32_t inode;
    memcpy(&inode, records + 4, sizeof inode);
    CHECK(inode == (uint32_t) client_stat.st_ino && inode != 0, "client record inode %u, fstat %lu", inode,
          (unsigned long) client_stat.st_ino);
    memcpy(&inode, records + 2 * TCPSIGHT_RECORD_STRIDE + 4, sizeof inode);
    CHECK(inode == 0, "fd -1 record inode %u", inode);
    int32_t queues[2];
    memcpy(queues, records + 8, sizeof queues);
    CHECK(queues[0] == -ENODATA && queues[1] == -ENODATA, "the sample leaves the queues unasked: %d/%d", queues[0],
          queues[1]);
    free(records);
    int32_t gone_fds[] = {-1, 100000};
    int32_t gone_queues[4];
    tcpsight_queue_batch(gone_fds, 2, gone_queues);
    CHECK(gone_queues[0] == -EBADF && gone_queues[1] == -EBADF, "fd -1 queues %d/%d", gone_queues[0], gone_queues[1]);
    CHECK(gone_queues[2] == -EBADF && gone_queues[3] == -EBADF, "unopened fd queues %d/%d", gone_queues[2],
          gone_queues[3]);

    /* bytes the peer sent that the client has not read: its receive queue, in the record */
    int server = accept(listener, NULL, NULL);
    CHECK(server >= 0, "accept");
    CHECK(write(server, "seven!!", 7) == 7, "server write");
    usleep(50000);
    int32_t client_only[] = {client};
    tcpsight_queue_batch(client_only, 1, queues);
    CHECK(queues[0] == 7 && queues[1] == 0, "client queues %d unread / %d unacked, expected 7/0", queues[0],
          queues[1]);
    close(server);
    /* a listener's own drops: a full accept queue on one listener counts there, not on another */
    struct sockaddr_in full_address, calm_address;
    int full = loopback_listener(&full_address);
    int calm = loopback_listener(&calm_address);
    CHECK(listen(full, 0) == 0, "backlog 0");
    CHECK(tcpsight_socket_drops(full) == 0, "a new listener has dropped nothing: %lld",
          (long long) tcpsight_socket_drops(full));
    int burst[6];
    for (int i = 0; i < 6; i++) {
        burst[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        int connected = connect(burst[i], (struct sockaddr *) &full_address, sizeof full_address);
        CHECK(connected == 0 || errno == EINPROGRESS, "burst connect %d: %d", i, errno);
    }
    usleep(50000);
    int64_t dropped = tcpsight_socket_drops(full);
    CHECK(dropped > 0, "a burst of 6 on a queue of 1 dropped on that listener: %lld", (long long) dropped);
    CHECK(tcpsight_socket_drops(calm) == 0, "the other listener dropped nothing: %lld",
          (long long) tcpsight_socket_drops(calm));
    CHECK(tcpsight_socket_drops(pipe_fds[0]) == -ENOTSOCK, "drops of a pipe: %lld",
          (long long) tcpsight_socket_drops(pipe_fds[0]));
    for (int i = 0; i < 6; i++) {
        close(burst[i]);
    }
    close(full);
    close(calm);
    CHECK(tcpsight_socket_inode(client) == (int64_t) client_stat.st_ino, "single-fd inode");
    CHECK(tcpsight_socket_inode(pipe_fds[0]) == -ENOTSOCK, "inode of a pipe");
    CHECK(tcpsight_socket_inode(-1) == -EBADF, "inode of fd -1");

    /* the C library's own text, also where the library was built against another one (musl) */
    char message[256];
    CHECK(tcpsight_errno_message(ECONNREFUSED, message, sizeof message) == 0
              && strcmp(message, strerror(ECONNREFUSED)) == 0,
          "errno message \"%s\", expected \"%s\"", message, strerror(ECONNREFUSED));
    CHECK(tcpsight_errno_message(ECONNREFUSED, message, 2) == -ERANGE, "errno message into 2 bytes");

    int32_t state[TCPSIGHT_STATE_COUNT];
    int rc = tcpsight_socket_state(client, state);
    CHECK(rc == 0, "socket state rc %d", rc);
    CHECK(state[TCPSIGHT_STATE_RCVBUF] > 0 && state[TCPSIGHT_STATE_SNDBUF] > 0, "buffers %d/%d",
          state[TCPSIGHT_STATE_RCVBUF], state[TCPSIGHT_STATE_SNDBUF]);
    CHECK(tcpsight_socket_state(pipe_fds[0], state) == -ENOTSOCK, "socket state of a pipe");

    char name[17];
    int length = tcpsight_get_congestion(client, name, sizeof name);
    CHECK(length > 0 && (size_t) length == strlen(name), "congestion length %d", length);
    CHECK(tcpsight_get_congestion(client, name, 0) == -EINVAL, "zero capacity");
    CHECK(tcpsight_set_congestion(client, "no-such-cc", 10) == -ENOENT, "unknown congestion control");
    CHECK(tcpsight_set_congestion(client, "reno", 4) == 0, "reno is always built in");
    length = tcpsight_get_congestion(client, name, sizeof name);
    CHECK(length == 4 && strcmp(name, "reno") == 0, "congestion after set: %s", name);

    unsigned char addresses[TCPSIGHT_ADDRESSES_BYTES];
    int32_t header[4];
    CHECK(tcpsight_socket_addresses(client, addresses) == 0, "client addresses");
    memcpy(header, addresses, sizeof header);
    CHECK(header[0] == 4 && header[2] == ntohs(address.sin_port), "client family %d peer port %d", header[0], header[2]);
    CHECK(memcmp(addresses + 32, &address.sin_addr, 4) == 0, "client peer address");
    CHECK(tcpsight_socket_addresses(listener, addresses) == 0, "listener addresses");
    memcpy(header, addresses, sizeof header);
    CHECK(header[1] == ntohs(address.sin_port) && header[2] == 0, "listener ports %d/%d", header[1], header[2]);
    CHECK(tcpsight_socket_addresses(pipe_fds[0], addresses) == -ENOTSOCK, "pipe addresses");
    CHECK(tcpsight_socket_addresses(-1, addresses) == -EBADF, "bad fd addresses");

    /* The host's kernel calls: a qdisc dump holds at least lo's root qdisc, whole messages only. */
    unsigned char *dump = malloc(65536);
    int dumped = tcpsight_qdisc_dump(dump, 65536);
    CHECK(dumped > 0, "qdisc dump %d", dumped);
    int qdiscs = 0;
    int remaining = dumped;
    for (struct nlmsghdr *message = (struct nlmsghdr *) dump; dumped > 0 && NLMSG_OK(message, (unsigned) remaining);
         message = NLMSG_NEXT(message, remaining)) {
        qdiscs += message->nlmsg_type == RTM_NEWQDISC;
    }
    CHECK(qdiscs >= 1 && remaining == 0, "%d qdiscs, %d bytes left over", qdiscs, remaining);
    CHECK(tcpsight_qdisc_dump(dump, 16) == -ENOBUFS, "a dump larger than the buffer");
    int lo = tcpsight_ethtool_stats("lo", dump, 65536);
    CHECK(lo == 4 || lo == -EOPNOTSUPP, "lo has no driver statistics: %d", lo);
    CHECK(tcpsight_ethtool_stats("tcpsight-none0", dump, 65536) == -ENODEV, "no such device");
    CHECK(tcpsight_ethtool_stats("a-device-name-too-long", dump, 65536) == -EINVAL, "name too long");
    free(dump);
    CHECK(tcpsight_listen(listener, 16) == 0, "a new backlog on a listening socket");
    CHECK(tcpsight_listen(pipe_fds[0], 16) == -ENOTSOCK, "listen on a pipe");

    close(client);
    close(listener);
    close(udp);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (failures == 0) {
        printf("socket_test: all checks passed\n");
    }
    return failures == 0 ? 0 : 1;
}
