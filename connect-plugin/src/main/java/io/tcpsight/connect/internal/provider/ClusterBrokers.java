package io.tcpsight.connect.internal.provider;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;

/**
 * The brokers a cluster advertises, asked with the client settings the provider's params give
 * (TLS, SASL). A bootstrap address is often one name in front of all brokers (a Kubernetes
 * Service, a load balancer): a handshake to it measures whichever broker answers, and counts one.
 * Each broker's advertised address is what a consumer fetches from.
 */
final class ClusterBrokers {
    static final String CLIENT_ID = "tcpsight-connect-provider";

    private ClusterBrokers() {}

    /**
     * The advertised address of every broker, within the timeout.
     *
     * @throws ListingFailed with Kafka's reason (a TLS or SASL failure names itself; no secret is in it)
     */
    static List<InetSocketAddress> list(ClusterAccess access, Duration timeout) throws ListingFailed {
        try (Admin admin = Admin.create(access.adminConfig(CLIENT_ID, timeout))) {
            Collection<Node> nodes =
                    admin.describeCluster().nodes().get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            List<InetSocketAddress> brokers = new ArrayList<>();
            for (Node node : nodes) {
                brokers.add(InetSocketAddress.createUnresolved(node.host(), node.port()));
            }
            if (brokers.isEmpty()) {
                throw new ListingFailed("the cluster listed no broker");
            }
            return brokers;
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause() == null ? failed : failed.getCause();
            throw new ListingFailed(cause.getClass().getSimpleName() + ": " + cause.getMessage());
        } catch (TimeoutException late) {
            throw new ListingFailed("no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new ListingFailed("interrupted");
        } catch (RuntimeException | LinkageError failed) {
            // Admin.create refuses a bad setting (an unknown sasl.mechanism, a missing truststore file) here
            throw new ListingFailed(failed.getClass().getSimpleName() + ": " + failed.getMessage());
        }
    }

    /** Why the brokers could not be listed; the measurement then probes the bootstrap servers. */
    static final class ListingFailed extends Exception {
        private static final long serialVersionUID = 1L;

        ListingFailed(String reason) {
            super(reason);
        }
    }
}
