package io.tcpsight.doctor.fleet;

import io.tcpsight.doctor.CommandConfigFile;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tcpsight fleet}: every broker's agent (and the Connect workers named) read at once, and
 * one ranked answer: which clients to call, what to tell each in its own library's keys, on which
 * brokers and connections, and what it gains; the brokers' and hosts' changes apart.
 */
@Command(
        name = "fleet",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Reads the findings of every broker's tcpsight agent (the cluster lists its brokers) and of the Connect workers"
                    + " named, all at once, and prints one report: per client (client.id or connector, and principal) what to"
                    + " change in its own library's keys, on which brokers and connections, and the rate it should gain; the"
                    + " change that fixes the most connections first; brokers', workers' and hosts' changes apart.",
            "An agent that does not answer is listed with the reason; the report is still printed.",
            "Exit codes: 0 every source answered and nothing to change, 1 something to change (warn or critical), 2 usage"
                    + " error, 3 nothing to change among those that answered but a source did not answer, or the cluster"
                    + " could not be asked."
        })
public final class FleetCommand implements Callable<Integer> {
    static final int NOTHING_TO_CHANGE = 0;
    static final int SOMETHING_TO_CHANGE = 1;
    static final int USAGE = 2;
    static final int NOT_KNOWN = 3;

    @Option(
            names = "--bootstrap-server",
            paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "The cluster whose brokers to ask. Default: bootstrap.servers from --command-config.")
    private String bootstrapServer;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description = "An Admin client config (properties): security settings to list the brokers with.")
    private Path commandConfig;

    @Option(
            names = "--agent-port",
            paramLabel = "PORT",
            defaultValue = "9464",
            description = "The agents' HTTP port on each broker's host (default ${DEFAULT-VALUE}).")
    private int agentPort;

    @Option(
            names = "--agent-scheme",
            paramLabel = "http|https",
            defaultValue = "http",
            description = "http (default) or https, as the agents serve.")
    private String agentScheme;

    @Option(
            names = "--agent",
            paramLabel = "NODE=URL",
            description = "The agent of broker NODE at another address than its host and --agent-port, e.g."
                    + " --agent 3=https://10.0.0.3:9465. Repeatable.")
    private Map<String, String> agents = new LinkedHashMap<>();

    @Option(
            names = "--agent-token-file",
            paramLabel = "FILE",
            description = "A file whose first line is the agents' bearer token (their http.auth.token.file).")
    private Path tokenFile;

    @Option(
            names = "--agent-basic-auth-file",
            paramLabel = "FILE",
            description = "Or a file whose first line is their basic auth, user:password (their http.auth.basic.file).")
    private Path basicFile;

    @Option(
            names = "--agent-ca-file",
            paramLabel = "FILE",
            description = "PEM certificates to trust for https agents (default: the JVM's trust store).")
    private Path caFile;

    @Option(
            names = "--connect-worker",
            paramLabel = "URL",
            description =
                    "A Connect worker's REST URL with the tcpsight plugin, e.g. http://connect-1:8083. Repeatable.")
    private List<String> workers = new ArrayList<>();

    @Option(
            names = "--timeout-ms",
            paramLabel = "MS",
            defaultValue = "5000",
            description =
                    "How long to wait for each agent's and worker's answer, and again for its findings (100-300000, "
                            + "default ${DEFAULT-VALUE}); the cluster is asked within the Admin client's "
                            + "default.api.timeout.ms.")
    private long timeoutMs;

    @Option(names = "--json", description = "Print the report as JSON.")
    private boolean json;

    private final PrintStream out;
    private final PrintStream err;

    public FleetCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (timeoutMs < 100 || timeoutMs > 300_000) {
            throw new IllegalArgumentException("--timeout-ms: " + timeoutMs + " is not allowed; use 100 to 300000");
        }
        if (!agentScheme.equals("http") && !agentScheme.equals("https")) {
            throw new IllegalArgumentException(
                    "--agent-scheme: '" + agentScheme + "' is not allowed; use http or https");
        }
        if (agentPort < 1 || agentPort > 65535) {
            throw new IllegalArgumentException("--agent-port: " + agentPort + " is not allowed; use 1 to 65535");
        }
        Properties admin = CommandConfigFile.read(commandConfig);
        if (bootstrapServer != null) {
            admin.setProperty("bootstrap.servers", bootstrapServer);
        }
        if (admin.getProperty("bootstrap.servers", "").isBlank()) {
            throw new IllegalArgumentException(
                    "--bootstrap-server: needed (or bootstrap.servers in --command-config), the cluster whose brokers to ask");
        }
        Map<Integer, URI> given = givenAgents();
        List<URI> workerUrls = new ArrayList<>();
        for (String worker : workers) {
            workerUrls.add(url("--connect-worker", worker));
        }
        FleetReader reader = FleetReader.of(
                Duration.ofMillis(timeoutMs),
                Optional.ofNullable(caFile),
                Optional.ofNullable(tokenFile),
                Optional.ofNullable(basicFile));
        List<FleetSource> sources;
        try {
            sources = new ArrayList<>(FleetMembers.agents(FleetMembers.brokers(admin), agentScheme, agentPort, given));
        } catch (IllegalStateException unanswered) {
            err.println("tcpsight fleet: " + unanswered.getMessage());
            return NOT_KNOWN;
        }
        workerUrls.forEach(url -> sources.add(FleetSource.worker(url)));
        FleetReport report = FleetReport.of(reader.read(sources));
        out.print(json ? FleetOutput.json(report) + System.lineSeparator() : FleetOutput.text(report));
        return exitCode(report);
    }

    /** 1 where a source said something to change; else 0 where every source answered, 3 where one did not. */
    static int exitCode(FleetReport report) {
        if (report.somethingToChange()) {
            return SOMETHING_TO_CHANGE;
        }
        return report.everySourceAnswered() ? NOTHING_TO_CHANGE : NOT_KNOWN;
    }

    private Map<Integer, URI> givenAgents() {
        Map<Integer, URI> given = new LinkedHashMap<>();
        for (Map.Entry<String, String> agent : agents.entrySet()) {
            int node;
            try {
                node = Integer.parseInt(agent.getKey().trim());
            } catch (NumberFormatException notANode) {
                throw new IllegalArgumentException("--agent: '" + agent.getKey()
                        + "' is not a node id; use NODE=URL with NODE a broker's node.id, e.g. 3=http://10.0.0.3:9464");
            }
            given.put(node, url("--agent", agent.getValue()));
        }
        return given;
    }

    /**
     * A base URL the user gave: http or https, a host and a port, nothing after; never credentials,
     * which the report would print (the error does not repeat such a value).
     */
    static URI url(String option, String value) {
        URI url;
        try {
            url = URI.create(value.trim());
        } catch (IllegalArgumentException malformed) {
            url = null;
        }
        if (url != null && url.getRawUserInfo() != null) {
            throw new IllegalArgumentException(
                    option + ": a URL with credentials is not allowed (they would be printed);"
                            + " give http(s)://HOST:PORT and --agent-token-file or --agent-basic-auth-file");
        }
        if (url == null
                || url.getHost() == null
                || url.getPort() < 0
                || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
                || !(url.getRawPath() == null
                        || url.getRawPath().isEmpty()
                        || url.getRawPath().equals("/"))
                || url.getRawQuery() != null
                || url.getRawFragment() != null) {
            throw new IllegalArgumentException(option + ": '" + value
                    + "' is not allowed; give http:// or https://, a host and a port, nothing after, e.g."
                    + " http://10.0.0.3:9464");
        }
        return url;
    }
}
