package io.tcpsight.doctor.fleet;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fleet's one answer, from every source's findings: per owner (a client by its client.id or
 * connector, with its principal) what to change in its own library's keys, on which brokers and
 * connections, and what its flows should gain; the brokers' and workers' settings grouped by the
 * change, so that one change on many brokers is one entry; hosts and paths apart. Each entry's
 * connections are counted once, however many ends judged them (a broker's agent and a Connect
 * worker's plugin see the same socket, where the answers carry its addresses). Ranked so that what
 * fixes the most comes first: warn and critical before info, then the most connections with
 * something to change, then the most gain. A pure function of the
 * answers: no clock, no I/O.
 */
final class FleetReport {
    /** Where an entry's change goes: a client's own config, a broker's or worker's, or a host (or nowhere: the path). */
    enum Section {
        CLIENTS,
        SERVERS,
        HOSTS_AND_PATHS
    }

    /** One thing to tell someone, with what it concerns and what it gains. */
    static final class Entry {
        final Section section;
        /** Who makes the change: an owner, or the brokers, workers or hosts it goes to. */
        final Set<String> who = new TreeSet<>();

        final Optional<String> principal;
        /** The connections on which an end saw that principal (the others' principal no end that answered knows). */
        final Set<String> principalSeenOn = new LinkedHashSet<>();
        /** Each change in the owner's words ("receive.buffer.bytes=-1 (java client)"), with its notes. */
        final Map<String, Set<String>> changes = new TreeMap<>();
        /** Each rule and its worst severity here. */
        final Map<String, String> rules = new TreeMap<>();

        final Set<String> connections = new LinkedHashSet<>();
        /** Those of its connections with a warn or critical finding: what its rank counts. */
        final Set<String> actionableConnections = new LinkedHashSet<>();
        /** The brokers and workers whose connections it concerns. */
        final Set<String> concerns = new TreeSet<>();

        private final Map<String, double[]> rates = new HashMap<>();
        private final Map<String, String> valueOf = new HashMap<>();
        private final Map<String, String> wordsOf = new HashMap<>();

        Entry(Section section, Optional<String> principal) {
            this.section = section;
            this.principal = principal;
        }

        /** 2 critical, 1 warn, 0 info: the worst severity of its rules. */
        int worst() {
            return rules.values().stream().mapToInt(FleetReport::tier).max().orElse(0);
        }

        /** 1 where a finding of it is warn or critical (something to change now), 0 where all inform. */
        int tier() {
            return worst() > 0 ? 1 : 0;
        }

        /** The connections its rank counts: those with something to change, else all (an entry that informs). */
        int rankedConnections() {
            return tier() > 0 ? actionableConnections.size() : connections.size();
        }

        /** The sum over its connections of what each should gain once every remedy named for it is applied, in Mbit/s. */
        double gainMbit() {
            return rates.values().stream()
                    .mapToDouble(rate -> Math.max(0, rate[1] - rate[0]))
                    .sum();
        }

        double nowMbit() {
            return rates.values().stream().mapToDouble(rate -> rate[0]).sum();
        }

        double afterMbit() {
            return rates.values().stream().mapToDouble(rate -> rate[1]).sum();
        }

        /** How many of its connections said what they should gain. */
        int connectionsWithGain() {
            return rates.size();
        }

        /**
         * One change of a remedy, in the owner's words where it is a client's own key. Two ends that
         * ask one key for different values (a fetch size for the partitions each sees) get the value
         * that does for both: autotuning (-1) where either asks it, else the larger number.
         */
        private void change(FleetFinding.Change change, boolean clientsOwn) {
            String setting = change.scope + "|" + change.library.orElse("") + "|" + change.keyOrWords();
            String before = valueOf.get(setting);
            String value = before == null ? change.value : either(change.keyOrWords(), before, change.value);
            valueOf.put(setting, value);
            String words = clientsOwn
                    ? change.keyOrWords() + "=" + value + " (" + change.scope
                            + change.library.map(library -> ", " + library).orElse("") + ")"
                    : change.scope + " " + change.keyOrWords() + "=" + value;
            if (before != null) {
                String was = wordsOf.get(setting);
                if (!was.equals(words)) {
                    changes.remove(was); // its notes were said of the value that gave way
                }
            }
            wordsOf.put(setting, words);
            Set<String> notes = changes.computeIfAbsent(words, key -> new TreeSet<>());
            if (value.equals(change.value)) {
                change.note.ifPresent(notes::add);
            }
        }

        /**
         * The value that does for both: a buffer left to autotune where either end asks it (-1 in
         * Java's keys, 0 in librdkafka's), else the larger number; for words, the first asked.
         */
        static String either(String key, String one, String other) {
            boolean buffer = key.endsWith("buffer.bytes");
            for (String autotune : buffer ? new String[] {"-1", "0"} : new String[] {"-1"}) {
                if (one.equals(autotune) || other.equals(autotune)) {
                    return autotune;
                }
            }
            try {
                return Long.parseLong(one) >= Long.parseLong(other) ? one : other;
            } catch (NumberFormatException notNumbers) {
                return one; // words, not numbers: the first asked
            }
        }

        private void add(FleetFinding finding, String connection, String concerns, ConnectionRate rate) {
            rules.merge(finding.rule, finding.severity, (a, b) -> FleetReport.tier(a) >= FleetReport.tier(b) ? a : b);
            connections.add(connection);
            if (finding.actionable()) {
                actionableConnections.add(connection);
            }
            this.concerns.add(concerns);
            rate.of(connection).ifPresent(known -> rates.put(connection, known));
        }
    }

    private static final Pattern ON_BROKER = Pattern.compile("on broker (\\d+)");
    private static final Comparator<Entry> MOST_FIXED_FIRST = Comparator.comparingInt(Entry::tier)
            .reversed()
            .thenComparing(Comparator.comparingInt(Entry::rankedConnections).reversed())
            .thenComparing(Comparator.comparingDouble(Entry::gainMbit).reversed())
            .thenComparing(entry -> String.join(", ", entry.who));

    private final List<FleetAnswer> answers;
    private final List<Entry> entries;

    private FleetReport(List<FleetAnswer> answers, List<Entry> entries) {
        this.answers = List.copyOf(answers);
        this.entries = List.copyOf(entries);
    }

    static FleetReport of(List<FleetAnswer> answers) {
        ConnectionRate rate = new ConnectionRate();
        Map<String, String> principalOfSocket = principalsBySocket(answers);
        Map<String, Set<String>> principalsOfOwner = principalsByOwner(answers, principalOfSocket);
        Map<String, Entry> byKey = new LinkedHashMap<>();
        for (FleetAnswer answer : answers) {
            for (FleetFinding finding : answer.findings()) {
                rate.add(connection(answer.source(), finding), finding);
            }
        }
        for (FleetAnswer answer : answers) {
            FleetSource source = answer.source();
            for (FleetFinding finding : answer.findings()) {
                String connection = connection(source, finding);
                String concerns = concerns(source, finding);
                String owner = owner(finding);
                // the principal an end saw on this very socket; a socket no end saw one on joins its
                // owner's one principal where only one is known, without being said to be that principal's
                Optional<String> seen =
                        finding.principal.or(() -> Optional.ofNullable(principalOfSocket.get(connection)));
                Set<String> known = principalsOfOwner.getOrDefault(owner, Set.of());
                Optional<String> principal = seen.isPresent() || known.size() != 1
                        ? seen
                        : Optional.of(known.iterator().next());
                if (finding.changes.isEmpty()) {
                    Entry path = byKey.computeIfAbsent(
                            "path|" + finding.rule, key -> new Entry(Section.HOSTS_AND_PATHS, Optional.empty()));
                    path.who.add(hostOf(source));
                    path.changes.computeIfAbsent("no setting: " + finding.rule, key -> new TreeSet<>());
                    path.add(finding, connection, concerns, rate);
                    continue;
                }
                // a finding's settings are one remedy (a broker's key and its host's max go together): one entry,
                // a client's wherever one of them is the client's own (a connector's override beside the worker's key)
                FleetFinding.Change first = finding.changes.get(0);
                Section section = finding.changes.stream().anyMatch(change -> section(change.scope) == Section.CLIENTS)
                        ? Section.CLIENTS
                        : section(first.scope);
                Entry entry;
                if (section == Section.CLIENTS) {
                    entry = byKey.computeIfAbsent(
                            "owner|" + owner + "|" + principal.orElse(""),
                            key -> new Entry(Section.CLIENTS, principal));
                    entry.who.add(owner);
                    if (seen.isPresent()) {
                        entry.principalSeenOn.add(connection);
                    }
                } else if (section == Section.HOSTS_AND_PATHS) {
                    entry = byKey.computeIfAbsent(
                            "host|" + remedy(finding), key -> new Entry(Section.HOSTS_AND_PATHS, Optional.empty()));
                    entry.who.add(hostFor(first, source, finding, owner));
                } else {
                    entry = byKey.computeIfAbsent(
                            "server|" + remedy(finding), key -> new Entry(Section.SERVERS, Optional.empty()));
                    entry.who.add(serverFor(first, source, finding, owner));
                }
                for (FleetFinding.Change change : finding.changes) {
                    entry.change(change, section == Section.CLIENTS && section(change.scope) == Section.CLIENTS);
                }
                entry.add(finding, connection, concerns, rate);
            }
        }
        List<Entry> ranked = new ArrayList<>(byKey.values());
        ranked.sort(MOST_FIXED_FIRST);
        return new FleetReport(answers, ranked);
    }

    List<FleetAnswer> answers() {
        return answers;
    }

    /** Every entry, what fixes the most first. */
    List<Entry> entries() {
        return entries;
    }

    List<Entry> entries(Section section) {
        return entries.stream().filter(entry -> entry.section == section).toList();
    }

    /** The warn or critical entry whose change fixes the most connections, the one to make first. */
    Optional<Entry> first() {
        return entries.stream().filter(entry -> entry.tier() > 0).findFirst();
    }

    /** Whether any source said something to change (warn or critical). */
    boolean somethingToChange() {
        return first().isPresent();
    }

    boolean everySourceAnswered() {
        return answers.stream().allMatch(FleetAnswer::answered);
    }

    /** A finding's remedy as one key: the settings it asks, in order. */
    private static String remedy(FleetFinding finding) {
        StringBuilder key = new StringBuilder();
        for (FleetFinding.Change change : finding.changes) {
            key.append(change.scope)
                    .append(' ')
                    .append(change.keyOrWords())
                    .append('=')
                    .append(change.value)
                    .append('|');
        }
        return key.toString();
    }

    /**
     * Where a setting of this scope goes: a client's own config (its client properties, its
     * connector's overrides, a dedicated MirrorMaker 2's file), a host (a sysctl, the kernel, a
     * device), else a broker's or worker's config or tcpsight's own.
     */
    static Section section(String scope) {
        if (scope.equals("client") || scope.startsWith("connector ") || scope.equals("mm2.properties")) {
            return Section.CLIENTS;
        }
        if (scope.equals("sysctl") || scope.equals("kernel") || scope.equals("host") || scope.endsWith(" sysctl")) {
            return Section.HOSTS_AND_PATHS;
        }
        return Section.SERVERS;
    }

    /**
     * The owner of a finding's client setting, as certain as the finding is: its connector, else
     * its client.id, else the client's address (never a guess at a name).
     */
    static String owner(FleetFinding finding) {
        if (finding.connector.isPresent()) {
            return "connector " + finding.connector.get()
                    + finding.cluster
                            .map(cluster -> " (cluster " + cluster + ")")
                            .orElse("");
        }
        if (finding.clientId.isPresent() && !finding.clientId.get().isEmpty()) {
            return "client.id " + finding.clientId.get();
        }
        Optional<String> client = finding.role.equals("broker") ? finding.remote : finding.local;
        return "a client without a client.id"
                + client.map(address -> " at " + address).orElseGet(() -> finding.listener
                        .map(name -> " on listener " + name)
                        .orElse(""));
    }

    /** The principal an end saw on each socket (a broker's agent knows it; a worker's plugin does not). */
    private static Map<String, String> principalsBySocket(List<FleetAnswer> answers) {
        Map<String, String> principals = new HashMap<>();
        for (FleetAnswer answer : answers) {
            for (FleetFinding finding : answer.findings()) {
                finding.principal.ifPresent(
                        principal -> principals.putIfAbsent(connection(answer.source(), finding), principal));
            }
        }
        return principals;
    }

    /** Each owner's principals, as the ends saw them on its sockets. */
    private static Map<String, Set<String>> principalsByOwner(
            List<FleetAnswer> answers, Map<String, String> principalOfSocket) {
        Map<String, Set<String>> principals = new HashMap<>();
        for (FleetAnswer answer : answers) {
            for (FleetFinding finding : answer.findings()) {
                String principal = principalOfSocket.get(connection(answer.source(), finding));
                if (principal != null) {
                    principals
                            .computeIfAbsent(owner(finding), key -> new TreeSet<>())
                            .add(principal);
                }
            }
        }
        return principals;
    }

    /** One socket, however many ends judged it: its two addresses in order, else what the source knows of it. */
    static String connection(FleetSource source, FleetFinding finding) {
        if (finding.local.isPresent() && finding.remote.isPresent()) {
            String a = finding.local.get();
            String b = finding.remote.get();
            return a.compareTo(b) <= 0 ? a + " " + b : b + " " + a;
        }
        return source.label() + " " + finding.role + " " + finding.clientId.orElse("-") + " "
                + finding.listener.orElse("-") + " " + finding.nodeId.orElse("-");
    }

    /** The broker (or worker) a connection belongs to, as the report names it. */
    private static String concerns(FleetSource source, FleetFinding finding) {
        if (source.kind() == FleetSource.Kind.BROKER) {
            return source.label();
        }
        return finding.nodeId.map(node -> "broker " + node).orElse(source.label());
    }

    private static String serverFor(
            FleetFinding.Change change, FleetSource source, FleetFinding finding, String owner) {
        if (change.scope.equals("broker")) {
            Matcher named = ON_BROKER.matcher(change.note.orElse(""));
            if (named.lookingAt()) {
                return "broker " + named.group(1);
            }
            if (source.kind() == FleetSource.Kind.BROKER) {
                return source.label();
            }
            return finding.nodeId
                    .map(node -> "broker " + node)
                    .orElseGet(() -> "the broker at " + finding.remote.orElse("(unknown)"));
        }
        if (change.scope.equals("connect-worker") && source.kind() == FleetSource.Kind.WORKER) {
            return source.label();
        }
        if (change.scope.equals("connect-worker")) {
            return "the Connect worker of " + owner;
        }
        return source.label() + " (" + change.scope + ")";
    }

    /** The host a sysctl goes to: the one its note names ("on the client's host", "on 10.0.0.2's host"), else the source's. */
    private static String hostFor(FleetFinding.Change change, FleetSource source, FleetFinding finding, String owner) {
        if (change.scope.startsWith("broker-host")) {
            FleetFinding.Change onBroker =
                    new FleetFinding.Change("broker", null, null, null, "", change.note.orElse(null));
            return serverFor(onBroker, source, finding, owner) + "'s host";
        }
        String note = change.note.orElse("");
        int end = note.indexOf("'s host");
        if (note.startsWith("on ") && end > 3) {
            String whose = note.substring(3, end);
            return whose.startsWith("the ") ? owner + "'s host" : whose + "'s host";
        }
        return hostOf(source);
    }

    private static String hostOf(FleetSource source) {
        return source.label() + "'s host";
    }

    static int tier(String severity) {
        switch (severity.toLowerCase(Locale.ROOT)) {
            case "critical":
                return 2;
            case "warn":
                return 1;
            default:
                return 0;
        }
    }

    /**
     * Per connection, the lowest ceiling any finding names now and the rate expected once every
     * remedy named for it is applied (the same on each of its findings), both in Mbit/s; known only
     * where both are.
     */
    private static final class ConnectionRate {
        private final Map<String, Double> now = new HashMap<>();
        private final Map<String, Double> after = new HashMap<>();

        void add(String connection, FleetFinding finding) {
            finding.limitNowMbit.ifPresent(value -> now.merge(connection, value, Math::min));
            finding.expectedAfterAllMbit.ifPresent(value -> after.merge(connection, value, Math::max));
        }

        Optional<double[]> of(String connection) {
            Double from = now.get(connection);
            Double to = after.get(connection);
            return from == null || to == null ? Optional.empty() : Optional.of(new double[] {from, to});
        }
    }
}
