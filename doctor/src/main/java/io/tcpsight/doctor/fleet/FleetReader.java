package io.tcpsight.doctor.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads every source's findings at once, each within the timeout for its answer and the timeout
 * again for its findings: an agent that does not answer,
 * answers with anything but 200, or with something that is not findings is a {@link
 * FleetAnswer#failed} with the reason, and the others are read as if it were not there. The
 * credentials go in a header and never into a reason.
 */
final class FleetReader {
    /** The most one answer may be: far above an agent's findings, and a bound whatever a source sends. */
    static final int MAX_ANSWER_BYTES = 32 * 1024 * 1024;

    private final HttpClient http;
    private final Duration timeout;
    private final Optional<String> authorization;

    private FleetReader(HttpClient http, Duration timeout, Optional<String> authorization) {
        this.http = http;
        this.timeout = timeout;
        this.authorization = authorization;
    }

    /**
     * @param caFile PEM certificates to trust for https, else the JVM's trust store
     * @param tokenFile a file whose first line is the agents' bearer token
     * @param basicFile or a file whose first line is their basic auth, user:password
     */
    static FleetReader of(Duration timeout, Optional<Path> caFile, Optional<Path> tokenFile, Optional<Path> basicFile) {
        if (tokenFile.isPresent() && basicFile.isPresent()) {
            throw new IllegalArgumentException(
                    "--agent-token-file and --agent-basic-auth-file: give one of them, not both");
        }
        HttpClient.Builder builder =
                HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER);
        caFile.ifPresent(file -> builder.sslContext(trusting(file)));
        Optional<String> authorization = tokenFile
                .map(file -> "Bearer " + firstLine("--agent-token-file", file))
                .or(() -> basicFile.map(file -> "Basic "
                        + Base64.getEncoder()
                                .encodeToString(firstLine("--agent-basic-auth-file", file)
                                        .getBytes(StandardCharsets.UTF_8))));
        return new FleetReader(builder.build(), timeout, authorization);
    }

    /** Every source's answer, in the order given; returns within about twice the timeout whatever the sources do. */
    List<FleetAnswer> read(List<FleetSource> sources) throws InterruptedException {
        List<CompletableFuture<FleetAnswer>> asked = new ArrayList<>();
        long askedAt = System.nanoTime();
        // when each source's status line came, 0 until it does: a source that answered is never said not to have
        List<AtomicLong> statusAt = new ArrayList<>();
        for (FleetSource source : sources) {
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(source.findings()).timeout(timeout).GET();
            if (source.kind() == FleetSource.Kind.BROKER) {
                authorization.ifPresent(value -> request.header("Authorization", value));
            }
            AtomicLong status = new AtomicLong();
            statusAt.add(status);
            asked.add(http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream())
                    .thenApply(response -> {
                        status.set(System.nanoTime());
                        return answer(source, response);
                    })
                    .exceptionally(failure -> FleetAnswer.failed(source, reason(failure))));
        }
        // the timeout for its answer (the HTTP client's own timer, to the status line) and the timeout again for its
        // findings: a cold JVM on a busy host reads and parses slowly (the fleet's run took 27 s in the lab beside
        // the other lane against 5.1 s alone, its four sources read in 1.3 s alone), and an answer read late is still
        // an answer. A source whose findings trickle is still given up, and the whole read stays bounded
        long deadline = System.nanoTime() + 2 * timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        List<FleetAnswer> answers = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            CompletableFuture<FleetAnswer> answer = asked.get(i);
            try {
                answers.add(answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException late) {
                answer.cancel(true);
                long status = statusAt.get(i).get();
                answers.add(FleetAnswer.failed(
                        sources.get(i),
                        status == 0
                                ? "no answer within " + timeout.toMillis() + " ms"
                                : "answered after " + TimeUnit.NANOSECONDS.toMillis(status - askedAt)
                                        + " ms, but its findings were not read in the "
                                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - status) + " ms after"));
            } catch (ExecutionException unexpected) {
                answers.add(FleetAnswer.failed(sources.get(i), reason(unexpected.getCause())));
            }
        }
        return answers;
    }

    private static FleetAnswer answer(FleetSource source, HttpResponse<InputStream> response) {
        try (InputStream body = response.body()) {
            if ((response.statusCode() == 401 || response.statusCode() == 403)
                    && source.kind() == FleetSource.Kind.BROKER) {
                return FleetAnswer.failed(
                        source,
                        "HTTP " + response.statusCode()
                                + ": the agent asks for credentials (--agent-token-file or --agent-basic-auth-file)"
                                + " it did not accept");
            }
            if (response.statusCode() == 401 || response.statusCode() == 403) {
                return FleetAnswer.failed(
                        source,
                        "HTTP " + response.statusCode() + ": the worker's REST asks for credentials; the fleet"
                                + " reads workers without any");
            }
            if (response.statusCode() != 200) {
                return FleetAnswer.failed(source, "HTTP " + response.statusCode());
            }
            byte[] bytes = body.readNBytes(MAX_ANSWER_BYTES + 1);
            if (bytes.length > MAX_ANSWER_BYTES) {
                return FleetAnswer.failed(source, "an answer larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            return FleetAnswer.answered(source, FleetFinding.parse(new String(bytes, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException notFindings) {
            return FleetAnswer.failed(source, notFindings.getMessage());
        } catch (IOException unreadable) {
            return FleetAnswer.failed(source, reason(unreadable));
        }
    }

    /** A failure in words: what went wrong, never a header's content. */
    static String reason(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return "no connection within the timeout";
        }
        if (cause instanceof HttpTimeoutException) {
            return "no answer within the timeout";
        }
        if (cause instanceof ConnectException) {
            return "connection refused (no agent listening there?)";
        }
        if (cause instanceof SSLException) {
            return "TLS failed: " + cause.getMessage() + " (--agent-ca-file trusts the agents' certificates)";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static String firstLine(String option, Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            String line = lines.isEmpty() ? "" : lines.get(0).strip();
            if (line.isEmpty()) {
                throw new IllegalArgumentException(option + ": " + file + " has an empty first line");
            }
            // a header carries visible ASCII only; the JDK's own error would print the line
            if (!line.chars().allMatch(c -> c > ' ' && c < 0x7f || c == ' ')) {
                throw new IllegalArgumentException(option + ": " + file
                        + "'s first line has a character a header cannot carry; allowed: visible ASCII and spaces");
            }
            return line;
        } catch (IOException unreadable) {
            throw new IllegalArgumentException(option + ": " + file + " cannot be read: " + unreadable);
        }
    }

    private static SSLContext trusting(Path caFile) {
        try (InputStream pem = Files.newInputStream(caFile)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate :
                    CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                trusted.setCertificateEntry("ca-" + i++, certificate);
            }
            if (i == 0) {
                throw new IllegalArgumentException("--agent-ca-file: " + caFile + " holds no PEM certificate");
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException unreadable) {
            throw new IllegalArgumentException(
                    "--agent-ca-file: " + caFile + " cannot be read as PEM certificates: " + unreadable.getMessage());
        }
    }
}
