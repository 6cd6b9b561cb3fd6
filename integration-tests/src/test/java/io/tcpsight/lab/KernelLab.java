package io.tcpsight.lab;

import io.tcpsight.internal.host.NetstatCounters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two hosts joined by a real TCP path with a chosen RTT, rate and loss: a server network
 * namespace, and a client that is either a second namespace or the test JVM's own namespace,
 * with a TUN device on each side and the delay line forwarding between them.
 *
 * <p>Everything it creates is named {@code tcpsight-<pid>-<n>} (namespaces) or
 * {@code tsl<pid>x<n>} (the root namespace's TUN device), and {@link #close()} removes it all,
 * as does the next lab started after a JVM that died without closing.
 */
public final class KernelLab implements AutoCloseable {
    /** ss's timer of a SYN-SENT socket: "timer:(on,<left>,<retransmissions>)". */
    private static final Pattern SYN_TIMER = Pattern.compile("timer:\\(on,[^,]*,(\\d+)\\)");

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final long PID = ProcessHandle.current().pid();
    private static volatile boolean staleCleaned;

    private final int index;
    private final Link link;
    private final String serverNamespace;
    private final String clientNamespace;
    private final String clientTun;
    private final String serverTun;
    private final String clientAddress;
    private final String serverAddress;
    private final String controlLink;
    private final String clientControlLink;
    private final int subnet;
    private final List<LabProcess> processes = Collections.synchronizedList(new ArrayList<>());
    /** Storage the lab's processes wrote (a broker's log.dirs), removed once they are killed. */
    private final List<Path> storage = Collections.synchronizedList(new ArrayList<>());

    private final Thread cleanupOnExit = new Thread(this::removeNetwork, "tcpsight-lab-cleanup");
    private LabProcess delayLine;
    /**
     * How long windows of the line's own may begin, one after another, where the setup's reading of
     * the idle line failed (the last one begun runs to its end, 3-5 s): nearly twice the longest run
     * of late windows seen on an idle line (four, 17 s, 2026-12-03, docs/lab.md).
     */
    static final Duration IDLE_WINDOWS_FOR = Duration.ofSeconds(30);
    /** The host's stalls when the line started, for what an idle reading that failed says. */
    private HostStalls stallsAtLineStart;

    private int holdQuestions;
    private int resetRequests;
    private LineHold idle;
    private boolean closed;
    /** The host's allowed congestion controls before this lab added one, to restore on close; null if untouched. */
    private String allowedCongestionControlBefore;

    private static final String CONGESTION_CONTROL = "net.ipv4.tcp_congestion_control";
    private static final Path ALLOWED_CONGESTION_CONTROL = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");

    /** Settings of one lab; every part has a default (client in the test JVM's namespace). */
    public static final class Builder {
        private Link link = Link.rtt(Duration.ZERO);
        private boolean clientNamespace;
        private final Map<String, String> serverSysctls = new LinkedHashMap<>();
        private final Map<String, String> clientSysctls = new LinkedHashMap<>();

        public Builder link(Link value) {
            link = value;
            return this;
        }

        /** Put the client in its own namespace (needed for client sysctls such as tcp_timestamps). */
        public Builder clientInNamespace() {
            clientNamespace = true;
            return this;
        }

        /** A namespaced sysctl of the server side, e.g. net.core.somaxconn. */
        public Builder serverSysctl(String key, Object value) {
            serverSysctls.put(key, String.valueOf(value));
            return this;
        }

        /** A namespaced sysctl of the client side; implies {@link #clientInNamespace()}. */
        public Builder clientSysctl(String key, Object value) {
            clientNamespace = true;
            clientSysctls.put(key, String.valueOf(value));
            return this;
        }

        public KernelLab start() throws IOException, InterruptedException {
            LabPrerequisites.requireKernelLab();
            KernelLab lab = new KernelLab(link, clientNamespace);
            try {
                lab.build(serverSysctls, clientSysctls);
                return lab;
            } catch (IOException | InterruptedException | RuntimeException | Error failure) {
                lab.close();
                throw failure;
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private KernelLab(Link link, boolean clientNamespace) {
        this.index = NEXT.incrementAndGet();
        this.link = link;
        String prefix = "tcpsight-" + PID + "-" + index;
        this.serverNamespace = prefix + "-s";
        this.clientNamespace = clientNamespace ? prefix + "-c" : null;
        this.clientTun = "tsl" + PID + "x" + index;
        this.serverTun = "tslsrv";
        this.subnet = (int) ((PID * 31 + index) % 250) + 1;
        this.clientAddress = "10.213." + subnet + ".1";
        this.serverAddress = "10.213." + subnet + ".2";
        this.controlLink = "tsc" + PID + "x" + index;
        this.clientControlLink = "tsk" + PID + "x" + index;
    }

    private void build(Map<String, String> serverSysctls, Map<String, String> clientSysctls)
            throws IOException, InterruptedException {
        cleanStaleLabs();
        Runtime.getRuntime().addShutdownHook(cleanupOnExit);
        setUpSide(serverNamespace, serverTun, serverAddress, clientAddress, serverSysctls);
        if (clientNamespace != null) {
            setUpSide(clientNamespace, "tslcli", clientAddress, serverAddress, clientSysctls);
            setUpControlLink();
            setUpClientControlLink();
        } else {
            setUpSide(null, clientTun, clientAddress, serverAddress, clientSysctls);
        }
        List<String> command = new ArrayList<>(Arrays.asList(
                LabPaths.delayLine().toString(),
                "--a-ns",
                clientNamespace == null ? "-" : clientNamespace,
                "--a-tun",
                clientNamespace == null ? clientTun : "tslcli",
                "--b-ns",
                serverNamespace,
                "--b-tun",
                serverTun,
                "--delay-us",
                Long.toString(link.oneWayDelay().toNanos() / 1000),
                "--queue-packets",
                Integer.toString(link.queuePackets()),
                "--delay-file",
                delayFile().toString()));
        if (link.rateMbit() > 0) {
            command.addAll(Arrays.asList("--rate-mbit", Double.toString(link.rateMbit())));
        }
        if (link.lossPercent() > 0) {
            command.addAll(
                    Arrays.asList("--loss-pct", Double.toString(link.lossPercent()), "--seed", Long.toString(index)));
        }
        delayLine = LabProcess.start(serverNamespace + "-delayline", command);
        delayLine.awaitLine("^ready$", Duration.ofSeconds(10));
        stallsAtLineStart = HostStalls.read();
    }

    private void setUpSide(String namespace, String tun, String address, String peer, Map<String, String> sysctls)
            throws IOException, InterruptedException {
        if (namespace != null) {
            run("ip", "netns", "add", namespace);
            inNamespace(namespace, "ip", "link", "set", "lo", "up");
            // Router solicitations would otherwise cross the link and show up in every capture.
            inNamespace(namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1");
            for (Map.Entry<String, String> sysctl : sysctls.entrySet()) {
                if (sysctl.getKey().equals(CONGESTION_CONTROL)) {
                    allowCongestionControl(sysctl.getValue());
                }
                inNamespace(namespace, "sysctl", "-qw", sysctl.getKey() + "=" + sysctl.getValue());
            }
        } else if (!sysctls.isEmpty()) {
            throw new IllegalArgumentException("client sysctls need the client in its own namespace");
        }
        inNamespace(namespace, "ip", "tuntap", "add", "mode", "tun", "name", tun);
        if (namespace == null) {
            run("sysctl", "-qw", "net.ipv6.conf." + tun + ".disable_ipv6=1");
        }
        inNamespace(namespace, "ip", "addr", "add", address + "/32", "dev", tun);
        inNamespace(namespace, "ip", "link", "set", tun, "txqueuelen", "5000", "up");
        inNamespace(namespace, "ip", "route", "add", peer + "/32", "dev", tun);
    }

    /**
     * A namespace may choose only a congestion control the host allows (EPERM otherwise; lab.md):
     * adds it to the init namespace's tcp_allowed_congestion_control, which close() restores.
     */
    private void allowCongestionControl(String algorithm) throws IOException {
        String before = Files.readString(ALLOWED_CONGESTION_CONTROL).trim();
        if (Arrays.asList(before.split("\\s+")).contains(algorithm)) {
            return;
        }
        if (allowedCongestionControlBefore == null) {
            allowedCongestionControlBefore = before;
        }
        Files.writeString(ALLOWED_CONGESTION_CONTROL, before + " " + algorithm);
    }

    /**
     * With the client in its own namespace, the test JVM still needs to reach the server (broker
     * readiness, the agent's HTTP endpoint): an undelayed veth pair to the server namespace,
     * with a route to the server's lab address. Traffic under test goes from the client
     * namespace across the delay line as before.
     */
    private void setUpControlLink() throws IOException, InterruptedException {
        String root = "10.214." + subnet + ".1";
        String server = "10.214." + subnet + ".2";
        run("ip", "link", "add", controlLink, "type", "veth", "peer", "name", "tslctl", "netns", serverNamespace);
        run("sysctl", "-qw", "net.ipv6.conf." + controlLink + ".disable_ipv6=1");
        run("ip", "addr", "add", root + "/30", "dev", controlLink);
        run("ip", "link", "set", controlLink, "up");
        inNamespace(serverNamespace, "ip", "addr", "add", server + "/30", "dev", "tslctl");
        inNamespace(serverNamespace, "ip", "link", "set", "tslctl", "up");
        run("ip", "route", "add", serverAddress + "/32", "via", server, "dev", controlLink);
    }

    /**
     * And an undelayed veth pair to the client namespace, so the test JVM can reach what runs
     * there (a Connect worker's REST API) at {@link #clientControlAddress()}.
     */
    private void setUpClientControlLink() throws IOException, InterruptedException {
        String root = "10.215." + subnet + ".1";
        run("ip", "link", "add", clientControlLink, "type", "veth", "peer", "name", "tslctl", "netns", clientNamespace);
        run("sysctl", "-qw", "net.ipv6.conf." + clientControlLink + ".disable_ipv6=1");
        run("ip", "addr", "add", root + "/30", "dev", clientControlLink);
        run("ip", "link", "set", clientControlLink, "up");
        inNamespace(clientNamespace, "ip", "addr", "add", clientControlAddress() + "/30", "dev", "tslctl");
        inNamespace(clientNamespace, "ip", "link", "set", "tslctl", "up");
    }

    /** The client namespace's address on its undelayed control link (only with the client in a namespace). */
    public String clientControlAddress() {
        if (clientNamespace == null) {
            throw new IllegalStateException("the client runs in the test JVM's namespace");
        }
        return "10.215." + subnet + ".2";
    }

    public Link link() {
        return link;
    }

    /** The server's address, reachable from the client side only across the delay line. */
    public String serverAddress() {
        return serverAddress;
    }

    public String clientAddress() {
        return clientAddress;
    }

    public String serverNamespace() {
        return serverNamespace;
    }

    /** Starts a command in the server namespace; the lab stops it on close. */
    public LabProcess execInServer(String name, List<String> command) throws IOException {
        return track(LabProcess.start(serverNamespace + "-" + name, inNamespaceCommand(serverNamespace, command)));
    }

    /** {@code command} as it runs on the client side: in the client's namespace, or as it is where the client has none. */
    public List<String> onClientSide(List<String> command) {
        return inNamespaceCommand(clientNamespace, command);
    }

    /** Starts a command on the client side (its namespace, or this JVM's); the lab stops it on close. */
    public LabProcess execInClient(String name, List<String> command) throws IOException {
        return track(
                LabProcess.start(serverNamespace + "-client-" + name, inNamespaceCommand(clientNamespace, command)));
    }

    /** A JVM running mainClass with this test JVM's classpath, in the server namespace. */
    public LabProcess javaInServer(String name, Class<?> mainClass, String... args) throws IOException {
        return execInServer(name, javaCommand(mainClass, args));
    }

    public LabProcess javaInClient(String name, Class<?> mainClass, String... args) throws IOException {
        return execInClient(name, javaCommand(mainClass, args));
    }

    /** As {@link #javaInClient(String, Class, String...)}, with JVM options (a -javaagent) before the main class. */
    public LabProcess javaInClient(String name, List<String> jvmOptions, Class<?> mainClass, String... args)
            throws IOException {
        return javaInClient(name, LabJvm.ofThisJvm().withOptions(jvmOptions), mainClass, args);
    }

    /** A JVM of that runtime, classpath and options running mainClass, on the client side. */
    public LabProcess javaInClient(String name, LabJvm jvm, Class<?> mainClass, String... args) throws IOException {
        return execInClient(name, jvm.command(mainClass, args));
    }

    LabProcess track(LabProcess process) {
        processes.add(process);
        return process;
    }

    static List<String> javaCommand(Class<?> mainClass, String... args) {
        return LabJvm.ofThisJvm().command(mainClass, args);
    }

    /** The server namespace's TcpExt counters (SyncookiesSent, ListenOverflows, ...). */
    public NetstatCounters serverNetstat() throws IOException, InterruptedException {
        return NetstatCounters.parse(
                output(inNamespaceCommand(serverNamespace, List.of("cat", "/proc/net/netstat"))),
                serverNamespace + ":/proc/net/netstat");
    }

    /**
     * Waits until no client-namespace connection to the server is left open at the server's end
     * (every state but LISTEN and TIME-WAIT counts), so that one run's teardown cannot reach into
     * the next run's counts (so far the broker's end was always quiet at once).
     *
     * @return the connections still open when the wait ended (0 unless it timed out)
     */
    public int awaitServerQuiet(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String sockets = output(inNamespaceCommand(serverNamespace, List.of("ss", "-tanH", "dst", clientAddress)));
            int open = 0;
            for (String line : sockets.split("\n")) {
                if (!line.isBlank() && !line.startsWith("LISTEN") && !line.startsWith("TIME-WAIT")) {
                    open++;
                }
            }
            if (open == 0 || System.nanoTime() > deadline) {
                return open;
            }
            Thread.sleep(200);
        }
    }

    /**
     * What the server side has delivered to the client side: the bytes the client acknowledged,
     * summed over the server's established connections to it (ss's bytes_acked), so a rate is
     * read on the line itself, not where the bytes end up.
     */
    public long serverBytesAckedByClient() throws IOException, InterruptedException {
        return total(serverBytesAckedByClientSocket());
    }

    /** The bytes of every connection in a reading of {@link #serverBytesAckedByClientSocket()}, summed. */
    public static long total(Map<String, Long> ackedBySocket) {
        return ackedBySocket.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The same bytes, connection by connection, keyed by both ends' addresses and ports (the
     * server's end first): which of several connections the line carried, reading by reading.
     */
    public Map<String, Long> serverBytesAckedByClientSocket() throws IOException, InterruptedException {
        Map<String, Long> acked = new TreeMap<>();
        for (String socket : serverSocketsToClient()) {
            // ss -H with a state filter: Recv-Q, Send-Q, local address:port, peer address:port, then the info
            String[] columns = socket.split("\\s+");
            acked.merge(columns.length > 3 ? columns[2] + " " + columns[3] : socket, bytesAcked(socket), Long::sum);
        }
        return acked;
    }

    /**
     * The server side's established connections to the client side that carried more than this
     * many bytes, a line each as ss prints them (cwnd, retransmissions, what limited the sender):
     * for a test to print beside a rate.
     */
    public String busyServerSockets(long moreThanBytes) throws IOException, InterruptedException {
        StringBuilder busy = new StringBuilder();
        for (String socket : serverSocketsToClient()) {
            if (bytesAcked(socket) > moreThanBytes) {
                busy.append(socket).append('\n');
            }
        }
        return busy.length() == 0 ? "none over " + moreThanBytes + " bytes" : busy.toString();
    }

    /** Each of the server side's established connections to the client side: its ss line and its info line, joined. */
    private List<String> serverSocketsToClient() throws IOException, InterruptedException {
        String sockets = output(inNamespaceCommand(
                serverNamespace, List.of("ss", "-tinH", "state", "established", "dst", clientAddress)));
        List<String> joined = new ArrayList<>();
        for (String line : sockets.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (Character.isWhitespace(line.charAt(0)) && !joined.isEmpty()) {
                joined.set(joined.size() - 1, joined.get(joined.size() - 1) + " | " + line.strip());
            } else {
                joined.add(line.trim());
            }
        }
        return joined;
    }

    private static long bytesAcked(String socket) {
        for (String token : socket.split("\\s+")) {
            if (token.startsWith("bytes_acked:")) {
                return Long.parseLong(token.substring("bytes_acked:".length()));
            }
        }
        return 0;
    }

    /**
     * How many times the process's handshake to the server's port has retransmitted its SYN so far,
     * read from the client side's own socket (ss's timer of a SYN-SENT socket counts them), or -1
     * while the process has no such socket.
     */
    public int clientSynRetransmissions(long pid, int port) throws IOException, InterruptedException {
        int retransmissions = -1;
        Matcher timer = SYN_TIMER.matcher("");
        for (String line : synSent(port).split("\n")) {
            if (line.contains("pid=" + pid + ",") && timer.reset(line).find()) {
                retransmissions = Math.max(retransmissions, Integer.parseInt(timer.group(1)));
            }
        }
        return retransmissions;
    }

    /** The client side's sockets still in SYN-SENT to the server's port, as ss prints them (for a failure). */
    public String clientSynSentSockets(int port) {
        try {
            return synSent(port);
        } catch (IOException | InterruptedException unreadable) {
            return "(ss: " + unreadable + ")";
        }
    }

    private String synSent(int port) throws IOException, InterruptedException {
        return output(inNamespaceCommand(
                clientNamespace, List.of("ss", "-tnpoH", "state", "syn-sent", "dst", serverAddress + ":" + port)));
    }

    /**
     * The kernel's own view, independent of tcpsight: the established client-side sockets to the
     * server by local port, each with whether it scales its window (ss prints "wscale:" on a
     * socket's second line only for a connection that does).
     */
    public Map<Integer, Boolean> clientConnectionScaling() throws IOException, InterruptedException {
        String sockets = output(inNamespaceCommand(
                clientNamespace, List.of("ss", "-tinH", "state", "established", "dst", serverAddress)));
        Map<Integer, Boolean> scaling = new LinkedHashMap<>();
        Integer port = null;
        for (String line : sockets.split("\n")) {
            if (line.contains(serverAddress + ":")) {
                port = null;
                for (String token : line.trim().split("\\s+")) {
                    if (token.startsWith(clientAddress + ":")) {
                        port = Integer.parseInt(token.substring(clientAddress.length() + 1));
                    }
                }
                if (port != null) {
                    scaling.put(port, false);
                }
            } else if (port != null && line.contains("wscale:")) {
                scaling.put(port, true);
            }
        }
        return scaling;
    }

    /** Stops every process, the delay line (printing its statistics to its log) and removes the network. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<LabProcess> started;
        synchronized (processes) {
            started = new ArrayList<>(processes);
        }
        // what runs in the lab ends with it, without a graceful stop (SIGKILL ends each at once)
        started.forEach(LabProcess::kill);
        removeStorage();
        if (delayLine != null) {
            delayLine.close();
        }
        removeNetwork();
        if (allowedCongestionControlBefore != null) {
            try {
                Files.writeString(ALLOWED_CONGESTION_CONTROL, allowedCongestionControlBefore);
            } catch (IOException unwritable) {
                System.err.println("lab: could not restore tcp_allowed_congestion_control: " + unwritable.getMessage());
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(cleanupOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    /**
     * Removes this directory when the lab closes, after its processes: a broker's log segments are
     * the lab's setup, not its record, and a suite writes gigabytes of them. Removed, their pages
     * the kernel has not yet written back are dropped, so writeback does not follow the suite into
     * the classes that run after (the logs beside them stay).
     */
    public void removeAtClose(Path directory) {
        storage.add(directory);
    }

    private void removeStorage() {
        List<Path> directories;
        synchronized (storage) {
            directories = new ArrayList<>(storage);
        }
        for (Path directory : directories) {
            try {
                // file by file, each failure passed over: a process still exiting may remove or add one meanwhile
                Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        file.toFile().delete();
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException failed) {
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException failed) {
                        dir.toFile().delete();
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException gone) {
                // what is left is only disk
            }
        }
    }

    /**
     * Sets a namespaced sysctl of the client side from now on, as an operator applying a finding
     * does (tcp_rmem: a socket opened after it starts from its default, and autotuning of any socket
     * grows up to its max). The client must be in its own namespace; a congestion control is
     * allowed first, as at the lab's start.
     */
    public void changeClientSysctl(String key, Object value) throws IOException, InterruptedException {
        if (clientNamespace == null) {
            throw new IllegalStateException("client sysctls need the client in its own namespace");
        }
        if (key.equals(CONGESTION_CONTROL)) {
            allowCongestionControl(String.valueOf(value));
        }
        inNamespace(clientNamespace, "sysctl", "-qw", key + "=" + value);
    }

    /**
     * Forgets what each side's kernel learnt of the other's address (tcp_metrics: the RTT a new
     * connection starts from), so that a connection opened next starts as the first one did.
     */
    public void forgetTcpMetrics() throws IOException, InterruptedException {
        if (clientNamespace == null) {
            throw new IllegalStateException("the client side's TCP metrics are the host's unless it has a namespace");
        }
        inNamespace(serverNamespace, "ip", "tcp_metrics", "flush");
        inNamespace(clientNamespace, "ip", "tcp_metrics", "flush");
    }

    /**
     * Changes the line's one-way delay for packets from now on, as when a route changes under
     * running clients: the delay line reads it on SIGHUP and confirms it.
     */
    public void changeOneWayDelay(Duration delay) throws IOException, InterruptedException {
        long micros = delay.toNanos() / 1000;
        Files.writeString(delayFile(), Long.toString(micros));
        run("kill", "-HUP", Long.toString(delayLine.pid()));
        delayLine.awaitLine("^delay " + micros + " us$", Duration.ofSeconds(10));
    }

    private Path delayFile() {
        return LabPaths.work().resolve(serverNamespace + "-delay-us");
    }

    /**
     * What the delay line has added to the nominal delay since it started (or since its maxima were
     * last started afresh, {@link #takeIdleLine()}), as it measured it: the
     * most each direction held a packet beyond the one-way delay (queueing behind the rate limit,
     * delivering late), and the latest it woke after a timeout ({@link #askTheLine()}).
     */
    synchronized LineHold lineHold() throws IOException, InterruptedException {
        Matcher answer = askTheLine();
        return new LineHold(
                link.roundTrip(),
                Duration.ofNanos(Long.parseLong(answer.group(1)) * 1000),
                Duration.ofNanos(Long.parseLong(answer.group(2)) * 1000),
                Duration.ofNanos(Long.parseLong(answer.group(3)) * 1000));
    }

    /**
     * The packets the line has not delivered in each direction since it started: lost at random or
     * dropped by its queue (a window larger than the rate and the queue hold), its ring, or a write.
     * What a retransmissions finding that says the path lost segments is checked against.
     */
    public Dropped packetsNotDelivered() throws IOException, InterruptedException {
        Matcher answer = askTheLine();
        return new Dropped(Long.parseLong(answer.group(4)), Long.parseLong(answer.group(5)));
    }

    /** Packets the line did not deliver: from the client's side toward the server's, and back. */
    public record Dropped(long towardTheServer, long towardTheClient) {
        /** What was dropped since an earlier reading of the same line. */
        public Dropped since(Dropped earlier) {
            return new Dropped(towardTheServer - earlier.towardTheServer, towardTheClient - earlier.towardTheClient);
        }
    }

    /** One SIGUSR1 question; each answer carries its number, so an earlier answer is never taken for this one. */
    private synchronized Matcher askTheLine() throws IOException, InterruptedException {
        int question = ++holdQuestions;
        run("kill", "-USR1", Long.toString(delayLine.pid()));
        return delayLine.awaitLine(
                "^held " + question + " a->b=(\\d+) b->a=(\\d+) wake=(\\d+) dropped a->b=(\\d+) b->a=(\\d+)$",
                Duration.ofSeconds(10));
    }

    /**
     * Pins the delay line to one CPU and returns its process id, for a test that stops it (SIGSTOP)
     * from another CPU, as a host that takes the line's CPU would.
     */
    long pinDelayLine(int cpu) throws IOException, InterruptedException {
        run("taskset", "-pc", Integer.toString(cpu), Long.toString(delayLine.pid()));
        return delayLine.pid();
    }

    /** Lets a stopped delay line run again (SIGCONT); nothing where it runs or has ended. */
    void resumeDelayLine() {
        quietly("kill", "-CONT", Long.toString(delayLine.pid()));
    }

    /** What the line has added so far, as text for a test's output (no bound: {@link #takeIdleLine()} bounds). */
    public String lineHeldSoFar() throws IOException, InterruptedException {
        return lineHold().toString();
    }

    /**
     * Reads what the line has added so far, before a test's bulk transfer, and keeps it as the bounds
     * every RTT the test checks is held to ({@link #idleLine()}): queueing that a bulk transfer causes
     * later cannot widen them. Fails when the idle line already held a packet, or woke, more than
     * {@link LineHold#IDLE_MOST} late, over the setup and then in every window of its own read for
     * {@link #IDLE_WINDOWS_FOR}: a line that does so cannot bound an RTT.
     */
    public synchronized LineHold takeIdleLine() throws IOException, InterruptedException {
        LineHold reading = lineHold();
        String host = stallsAtLineStart == null ? "" : HostStalls.read().since(stallsAtLineStart, "the line started");
        if (!reading.idle()) {
            // The first reading spans the lab's setup: its broker's start, and whatever the suite's other lane
            // starts or ends meanwhile on the same two CPUs. Windows of the line's own decide, each with its maxima
            // started afresh and handshakes across it, under the same bound, one after another while they begin
            // within IDLE_WINDOWS_FOR: an idle line on this VM woke more than 3 ms late in 13 of 42 windows of 4.2 s,
            // 4 of the 8 with nothing beside it, in runs of up to four windows (17 s), with clean windows between
            // them (docs/lab.md). The bounds are the first clean window's. A line late all the time fails every
            // window, as a line stopped for 5 ms every 200 ms does.
            System.out.println(
                    "[line] over the setup: " + reading + "; " + host + "; read again over windows of its own");
            long deadline = System.nanoTime() + IDLE_WINDOWS_FOR.toNanos();
            List<String> windows = new ArrayList<>();
            while (true) {
                resetLineHold();
                HostStalls before = HostStalls.read();
                probeLine();
                LineHold own = lineHold();
                String stalls = HostStalls.read().since(before, "its window began");
                windows.add(own + "; " + stalls);
                if (own.idle() || System.nanoTime() >= deadline) {
                    own.assertIdle(windows.size() + " window(s) of its own, begun within "
                            + IDLE_WINDOWS_FOR.toSeconds() + " s, each with what the host did meanwhile: " + windows
                            + "; over the setup it read " + reading);
                    idle = own;
                    return own;
                }
                System.out.println("[line] its own window " + windows.size() + ": " + own + "; " + stalls);
            }
        }
        reading.assertIdle(host);
        idle = reading;
        return reading;
    }

    /**
     * Starts the line's maxima afresh, for a test to read what the line added over its own transfer
     * ({@link #lineHeldSoFar()}); bounds {@link #takeIdleLine()} kept before stay as they were read.
     */
    public synchronized void restartLineMaxima() throws IOException, InterruptedException {
        resetLineHold();
    }

    /** Starts the line's maxima afresh (SIGUSR2); each answer carries the number of the request. */
    private void resetLineHold() throws IOException, InterruptedException {
        int request = ++resetRequests;
        run("kill", "-USR2", Long.toString(delayLine.pid()));
        delayLine.awaitLine("^reset " + request + "$", Duration.ofSeconds(10));
    }

    /**
     * Twenty handshakes across the idle line, 100 ms apart, from the client's side to a port nothing
     * serves on the server's (its kernel answers each SYN with a reset): packets in both directions
     * for the line to hold, a few seconds of them. A reset that came back crossed the line both ways;
     * fewer than ten of them, and the window proves nothing of the line, which fails the reading.
     */
    private void probeLine() throws IOException, InterruptedException {
        // each handshake gives up after a second: a lossy line may drop a SYN or its reset
        String script = "for i in $(seq 20); do timeout 1 bash -c 'exec 3<>/dev/tcp/" + serverAddress
                + "/9' 2>&1 | grep -c 'Connection refused'; sleep 0.1; done; true";
        String counts = output(inNamespaceCommand(clientNamespace, List.of("bash", "-c", script)));
        long answered = counts.lines().filter(line -> !line.trim().equals("0")).count();
        if (answered < 10) {
            throw new AssertionError("the idle line's own window: " + answered + " of 20 handshakes across it to "
                    + serverAddress + ":9 came back refused, too few to read the line by (bash, seq, timeout):\n"
                    + counts);
        }
    }

    /** The line's bounds as {@link #takeIdleLine()} read them before the bulk transfer. */
    public synchronized LineHold idleLine() {
        if (idle == null) {
            throw new IllegalStateException("no reading of the idle line was taken before the bulk transfer"
                    + " (takeIdleLine): a reading after it would widen the bounds by the transfer's own queueing");
        }
        return idle;
    }

    public String delayLineStatistics() {
        return delayLine == null ? "" : delayLine.output();
    }

    private void removeNetwork() {
        quietly("ip", "netns", "del", serverNamespace); // takes the control link's peer, and so the link, with it
        quietly("ip", "link", "del", controlLink);
        quietly("ip", "link", "del", clientControlLink);
        if (clientNamespace != null) {
            quietly("ip", "netns", "del", clientNamespace);
        } else {
            quietly("ip", "link", "del", clientTun);
        }
    }

    /** Removes namespaces and devices of labs whose JVM died without closing them. */
    private static synchronized void cleanStaleLabs() throws IOException, InterruptedException {
        if (staleCleaned) {
            return;
        }
        staleCleaned = true;
        for (String line : output(List.of("ip", "netns", "list")).split("\n")) {
            String name = line.split("\\s+")[0];
            if (name.startsWith("tcpsight-") && !ownerAlive(name.split("-")[1])) {
                quietly("ip", "netns", "del", name);
            }
        }
        for (String line : output(List.of("ip", "-o", "link", "show")).split("\n")) {
            String[] parts = line.split(":\\s+");
            String name = parts.length > 1 ? parts[1].split("@")[0] : "";
            if (name.matches("ts[lck]\\d+x\\d+") && !ownerAlive(name.substring(3, name.indexOf('x')))) {
                quietly("ip", "link", "del", name);
            }
        }
    }

    private static boolean ownerAlive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid))
                    .map(ProcessHandle::isAlive)
                    .orElse(false);
        } catch (NumberFormatException notOurs) {
            return true;
        }
    }

    private static List<String> inNamespaceCommand(String namespace, List<String> command) {
        if (namespace == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(Arrays.asList("ip", "netns", "exec", namespace));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void inNamespace(String namespace, String... command) throws IOException, InterruptedException {
        output(inNamespaceCommand(namespace, Arrays.asList(command)));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        output(Arrays.asList(command));
    }

    static String output(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + exit + "): " + output.trim());
        }
        return output;
    }

    private static void quietly(String... command) {
        try {
            new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor();
        } catch (IOException | InterruptedException ignored) {
            // best effort: cleanup must not hide the test's own failure
        }
    }
}
