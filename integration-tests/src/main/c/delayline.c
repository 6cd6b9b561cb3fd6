/*
 * A userspace network delay line: forwards IP packets between two TUN devices (each may live
 * in its own network namespace) holding every packet for a one-way delay, with an optional
 * rate limit, random loss and a bounded queue. It exists because the lab kernel has no netem.
 *
 *   delayline --a-ns NAME|- --a-tun IF --b-ns NAME --b-tun IF --delay-us N
 *             [--rate-mbit N] [--loss-pct X] [--queue-packets N] [--seed N] [--delay-file PATH]
 *
 * "-" as a namespace means the caller's own. Prints "ready" once both devices are open, and
 * its statistics on SIGTERM/SIGINT. On SIGHUP it reads a new one-way delay in microseconds from
 * the delay file, for packets that arrive from then on (a path whose RTT changes), and prints
 * "delay N us". On SIGUSR1 it prints "held N a->b=X b->a=Y wake=Z dropped a->b=P b->a=Q" (N counts the SIGUSR1s): the most
 * each direction has held a packet beyond the one-way delay since it started (queueing behind the
 * rate limit, and delivering late), and the latest it woke after a timeout, all in microseconds.
 * These are what the line itself added to the nominal RTT, so a test can bound an RTT it reads
 * from the kernel by what was measured instead of by the nominal delay alone; P and Q count the packets
 * each direction has not delivered since it started (lost at random, or dropped by its queue, ring or
 * write), so a test can tell a loss the line caused from none. On SIGUSR2 it starts
 * those maxima afresh and prints "reset N" (N counts the SIGUSR2s), for a reading of a window of
 * its own. While it runs it
 * holds a CPU latency request of 0 (/dev/cpu_dma_latency), so that no CPU halts under its timers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 2048
#define SLOTS 32768               /* packets held per direction: in flight plus queued */
#define BATCH_WINDOW_NS 250000LL  /* packets due within this window are delivered together */
#define READS_PER_WAKEUP 64

struct packet {
    int64_t received_ns;
    int64_t delay_ns;             /* the one-way delay in force when it arrived */
    int64_t due_ns;
    uint32_t length;
    unsigned char data[SLOT_BYTES];
};

struct direction {
    const char *name;
    int in_fd;
    int out_fd;
    struct packet *ring;
    uint32_t head;                /* next to deliver */
    uint32_t tail;                /* next free */
    int64_t link_free_ns;         /* when the simulated link finishes serialising */
    uint64_t forwarded, forwarded_bytes, lost, queue_drops, ring_drops, write_drops;
    int64_t max_extra_hold_ns;    /* the most a delivered packet was held beyond delay_ns */
};

static volatile sig_atomic_t stopping = 0;
static volatile sig_atomic_t delay_changed = 0;
static volatile sig_atomic_t held_asked = 0;
static long held_answers = 0;
static volatile sig_atomic_t reset_asked = 0;
static long reset_answers = 0;
static int64_t max_wake_late_ns = 0;
static const char *delay_file = NULL;
static int64_t delay_ns;
static double rate_bytes_per_ns;  /* 0: unlimited */
static double loss_fraction;
static int64_t queue_limit_bytes;
static uint64_t random_state = 88172645463325252ULL;

static void on_signal(int signal_number) { (void) signal_number; stopping = 1; }
static void on_hangup(int signal_number) { (void) signal_number; delay_changed = 1; }
static void on_held(int signal_number) { (void) signal_number; held_asked = 1; }
static void on_reset(int signal_number) { (void) signal_number; reset_asked = 1; }

static void read_delay_file(void) {
    FILE *file = delay_file ? fopen(delay_file, "r") : NULL;
    long long delay_us = -1;
    if (!file || fscanf(file, "%lld", &delay_us) != 1 || delay_us < 0) {
        fprintf(stderr, "delayline: SIGHUP without a readable delay in microseconds in %s\n",
                delay_file ? delay_file : "(no --delay-file)");
    } else {
        delay_ns = delay_us * 1000LL;
        printf("delay %lld us\n", delay_us);
        fflush(stdout);
    }
    if (file) {
        fclose(file);
    }
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double next_random(void) {
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return (double) (random_state >> 11) / (double) (1ULL << 53);
}

static int open_tun(const char *namespace_name, const char *device) {
    int original = -1;
    if (strcmp(namespace_name, "-") != 0) {
        char path[256];
        snprintf(path, sizeof path, "/var/run/netns/%s", namespace_name);
        original = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        int target = open(path, O_RDONLY | O_CLOEXEC);
        if (original < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
            fprintf(stderr, "delayline: cannot enter namespace %s: %s\n", namespace_name, strerror(errno));
            exit(2);
        }
        close(target);
    }
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    struct ifreq request;
    memset(&request, 0, sizeof request);
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(request.ifr_name, device, IFNAMSIZ - 1);
    if (fd < 0 || ioctl(fd, TUNSETIFF, &request) != 0) {
        fprintf(stderr, "delayline: cannot attach to TUN %s in %s: %s\n", device, namespace_name, strerror(errno));
        exit(2);
    }
    if (original >= 0) {
        if (setns(original, CLONE_NEWNET) != 0) {
            fprintf(stderr, "delayline: cannot return to the original namespace: %s\n", strerror(errno));
            exit(2);
        }
        close(original);
    }
    return fd;
}

/*
 * Reads what is waiting on in_fd and schedules each packet for delivery. Each packet's delay
 * counts from its own read: a time taken before the loop would be older than a packet that
 * arrived while the loop ran, or while this process lost its CPU inside it, and that packet
 * would leave early by as much. A line stopped 3 ms at a time or more under a paced flow read
 * stamps up to 11.9 ms old, and the flow's sender a min_rtt of 91.5-98.9 ms across 100 in six
 * runs (docs/lab.md).
 */
static void receive(struct direction *d) {
    for (int i = 0; i < READS_PER_WAKEUP; i++) {
        struct packet *slot = &d->ring[d->tail % SLOTS];
        ssize_t n = read(d->in_fd, slot->data, SLOT_BYTES);
        if (n <= 0) {
            return;
        }
        int64_t now = now_ns();
        if (d->tail - d->head >= SLOTS) {
            d->ring_drops++;
            continue;
        }
        if (loss_fraction > 0 && next_random() < loss_fraction) {
            d->lost++;
            continue;
        }
        int64_t start = now;
        if (rate_bytes_per_ns > 0) {
            if (d->link_free_ns > start) {
                start = d->link_free_ns;
            }
            int64_t backlog_bytes = (int64_t) ((start - now) * rate_bytes_per_ns);
            if (backlog_bytes + n > queue_limit_bytes) {
                d->queue_drops++;
                continue;
            }
            d->link_free_ns = start + (int64_t) (n / rate_bytes_per_ns);
            start = d->link_free_ns;
        }
        slot->received_ns = now;
        slot->delay_ns = delay_ns;
        slot->due_ns = start + delay_ns;
        slot->length = (uint32_t) n;
        d->tail++;
    }
}

/* Delivers every packet due by now plus the batch window; returns the next due time or -1. */
static int64_t deliver(struct direction *d, int64_t now) {
    while (d->head != d->tail) {
        struct packet *slot = &d->ring[d->head % SLOTS];
        if (slot->due_ns > now + BATCH_WINDOW_NS) {
            return slot->due_ns;
        }
        if (write(d->out_fd, slot->data, slot->length) < 0) {
            d->write_drops++;
        } else {
            d->forwarded++;
            d->forwarded_bytes += slot->length;
            int64_t extra = now_ns() - slot->received_ns - slot->delay_ns;
            if (extra > d->max_extra_hold_ns) {
                d->max_extra_hold_ns = extra;
            }
        }
        d->head++;
    }
    return -1;
}

/* Every packet a direction did not deliver since it started: lost at random, or dropped by its queue, ring or write. */
static uint64_t not_delivered(const struct direction *d) {
    return d->lost + d->queue_drops + d->ring_drops + d->write_drops;
}

static void print_stats(const struct direction *d) {
    printf("%s forwarded=%llu bytes=%llu lost=%llu queue_drops=%llu ring_drops=%llu write_drops=%llu\n", d->name,
           (unsigned long long) d->forwarded, (unsigned long long) d->forwarded_bytes, (unsigned long long) d->lost,
           (unsigned long long) d->queue_drops, (unsigned long long) d->ring_drops, (unsigned long long) d->write_drops);
}

int main(int argc, char **argv) {
    const char *a_ns = NULL, *a_tun = NULL, *b_ns = NULL, *b_tun = NULL;
    double rate_mbit = 0, loss_pct = 0;
    long queue_packets = 1000;
    long long delay_us = -1;
    static struct option options[] = {
        {"a-ns", required_argument, 0, 'a'}, {"a-tun", required_argument, 0, 'A'},
        {"b-ns", required_argument, 0, 'b'}, {"b-tun", required_argument, 0, 'B'},
        {"delay-us", required_argument, 0, 'd'}, {"rate-mbit", required_argument, 0, 'r'},
        {"loss-pct", required_argument, 0, 'l'}, {"queue-packets", required_argument, 0, 'q'},
        {"seed", required_argument, 0, 's'}, {"delay-file", required_argument, 0, 'f'}, {0, 0, 0, 0}};
    for (int option; (option = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        switch (option) {
            case 'a': a_ns = optarg; break;
            case 'A': a_tun = optarg; break;
            case 'b': b_ns = optarg; break;
            case 'B': b_tun = optarg; break;
            case 'd': delay_us = atoll(optarg); break;
            case 'r': rate_mbit = atof(optarg); break;
            case 'l': loss_pct = atof(optarg); break;
            case 'q': queue_packets = atol(optarg); break;
            case 's': random_state = strtoull(optarg, NULL, 10) | 1; break;
            case 'f': delay_file = optarg; break;
            default: return 2;
        }
    }
    if (!a_ns || !a_tun || !b_ns || !b_tun || delay_us < 0 || rate_mbit < 0 || loss_pct < 0 || loss_pct >= 100
        || queue_packets < 1) {
        fprintf(stderr, "usage: delayline --a-ns NS|- --a-tun IF --b-ns NS|- --b-tun IF --delay-us N "
                        "[--rate-mbit N] [--loss-pct 0..99] [--queue-packets N] [--seed N] [--delay-file PATH]\n");
        return 2;
    }
    delay_ns = delay_us * 1000LL;
    rate_bytes_per_ns = rate_mbit * 1e6 / 8 / 1e9;
    loss_fraction = loss_pct / 100.0;
    queue_limit_bytes = queue_packets * 1500LL;

    struct direction ab = {.name = "a->b"}, ba = {.name = "b->a"};
    ab.in_fd = ba.out_fd = open_tun(a_ns, a_tun);
    ba.in_fd = ab.out_fd = open_tun(b_ns, b_tun);
    ab.ring = malloc(sizeof(struct packet) * SLOTS);
    ba.ring = malloc(sizeof(struct packet) * SLOTS);
    if (!ab.ring || !ba.ring) {
        fprintf(stderr, "delayline: out of memory\n");
        return 2;
    }

    /* Timer wake-ups in these VMs are otherwise up to tens of milliseconds late under load. */
    struct sched_param priority = {.sched_priority = 50};
    if (sched_setscheduler(0, SCHED_FIFO, &priority) != 0) {
        fprintf(stderr, "delayline: SCHED_FIFO unavailable (%s); delays may be late under load\n", strerror(errno));
    }
    /* And idle CPUs here halt, and the hypervisor resumed a halted one up to 18 ms late on an idle host
     * (docs/lab.md): a request for a CPU latency of 0 (PM QoS, held while the descriptor stays open, as
     * cyclictest holds it) keeps them polling instead, for as long as a line runs. */
    int cpu_latency = open("/dev/cpu_dma_latency", O_WRONLY);
    int32_t no_latency = 0;
    if (cpu_latency < 0 || write(cpu_latency, &no_latency, sizeof no_latency) != (ssize_t) sizeof no_latency) {
        fprintf(stderr, "delayline: no CPU latency request (%s); a halted CPU may wake it late\n", strerror(errno));
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_hangup);
    signal(SIGUSR1, on_held);
    signal(SIGUSR2, on_reset);
    printf("ready\n");
    fflush(stdout);

    struct pollfd fds[2] = {{.fd = ab.in_fd, .events = POLLIN}, {.fd = ba.in_fd, .events = POLLIN}};
    while (!stopping) {
        if (delay_changed) {
            delay_changed = 0;
            read_delay_file();
        }
        if (reset_asked) {
            reset_asked = 0;
            ab.max_extra_hold_ns = 0;
            ba.max_extra_hold_ns = 0;
            max_wake_late_ns = 0;
            printf("reset %ld\n", ++reset_answers);
            fflush(stdout);
        }
        if (held_asked) {
            held_asked = 0;
            printf("held %ld a->b=%lld b->a=%lld wake=%lld dropped a->b=%llu b->a=%llu\n", ++held_answers,
                   (long long) (ab.max_extra_hold_ns / 1000), (long long) (ba.max_extra_hold_ns / 1000),
                   (long long) (max_wake_late_ns / 1000), (unsigned long long) not_delivered(&ab),
                   (unsigned long long) not_delivered(&ba));
            fflush(stdout);
        }
        int64_t now = now_ns();
        int64_t next_ab = deliver(&ab, now);
        int64_t next_ba = deliver(&ba, now);
        int64_t next = next_ab < 0 ? next_ba : (next_ba < 0 || next_ab < next_ba ? next_ab : next_ba);
        struct timespec timeout = {.tv_sec = 1, .tv_nsec = 0};
        int64_t wake_at = -1;
        if (next >= 0) {
            wake_at = next;
            int64_t wait = next - now_ns();
            if (wait < 0) {
                wait = 0;
            }
            timeout.tv_sec = wait / 1000000000LL;
            timeout.tv_nsec = wait % 1000000000LL;
        }
        int ready = ppoll(fds, 2, &timeout, NULL);
        if (ready < 0 && errno != EINTR) {
            perror("delayline: ppoll");
            break;
        }
        now = now_ns();
        if (ready == 0 && wake_at >= 0 && now - wake_at > max_wake_late_ns) {
            max_wake_late_ns = now - wake_at;
        }
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            receive(&ab);
        }
        if (ready > 0 && (fds[1].revents & POLLIN)) {
            receive(&ba);
        }
    }
    print_stats(&ab);
    print_stats(&ba);
    fflush(stdout);
    free(ab.ring);
    free(ba.ring);
    return 0;
}
