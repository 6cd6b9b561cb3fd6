package io.tcpsight.doctor;

import io.tcpsight.internal.config.TcpsightConfig;
import io.tcpsight.internal.diagnose.Diagnosis;
import io.tcpsight.internal.diagnose.config.BrokerConfigRules;
import io.tcpsight.internal.diagnose.config.ClientConfigRules;
import io.tcpsight.internal.diagnose.finding.Finding;
import io.tcpsight.internal.model.ConnectionIdentity;
import io.tcpsight.internal.model.KafkaSettings;
import io.tcpsight.internal.model.KernelFacts;
import io.tcpsight.internal.model.OptionalValues;
import io.tcpsight.internal.model.ProducerPipeline;
import io.tcpsight.internal.tuning.BdpSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The doctor's judgement of what its survey gathered: a consumer's or a producer's findings on
 * each broker path and this host, worst first, and the fetch sizing for the slowest path. Pure
 * functions of the survey; the command gathers, this judges, the report shows.
 */
final class DoctorJudgement {
    private DoctorJudgement() {}

    /**
     * Every finding, worst first: the survey's, each broker path's and socket settings', and this
     * host's for the slowest path. A consumer's path to a broker is one flow: the client's own
     * window and fetch sizes (its connection's findings), the broker's send buffer and this host's
     * window scaling all hold it, so each limit among them says the rate once all of their remedies
     * are applied. The broker's receive buffer holds producers, whose other limits the doctor does
     * not judge, so it says none.
     */
    static List<Finding> consumer(
            ClusterSurvey survey,
            Optional<BrokerPaths.BrokerPath> slowest,
            DoctorClient client,
            KernelFacts kernel,
            KafkaSettings consumer,
            TcpsightConfig config) {
        List<Finding> consumerFlow = new ArrayList<>(survey.findings);
        consumerFlow.addAll(BrokerPaths.findings(survey.brokers, client, config));
        List<Finding> producerFlow = new ArrayList<>();
        for (BrokerPaths.BrokerPath broker : survey.brokers) {
            Optional<Map<String, String>> brokerConfig = survey.configOf(broker);
            if (broker.reachable() && brokerConfig.isPresent()) {
                ConnectionIdentity path = broker.identity(client);
                BrokerConfigRules.sendBuffer(brokerConfig.get(), path, broker.rttMicros(), config)
                        .ifPresent(consumerFlow::add);
                BrokerConfigRules.receiveBuffer(brokerConfig.get(), path, broker.rttMicros(), config)
                        .ifPresent(producerFlow::add);
            }
        }
        slowest.ifPresent(
                path -> consumerFlow.addAll(Diagnosis.host(kernel, path.identity(client), path.rttMicros(), config)));
        Map<String, Long> rttByPath = new LinkedHashMap<>();
        for (BrokerPaths.BrokerPath broker : survey.brokers) {
            if (broker.reachable()) {
                rttByPath.put(ClientPaths.key(broker.identity(client)), broker.rttMicros());
            }
        }
        List<Finding> findings =
                new ArrayList<>(ClientPaths.annotate(consumerFlow, rttByPath, ClientRole.CONSUMER, consumer, config));
        findings.addAll(producerFlow);
        findings.sort(Comparator.comparing(Finding::severity).reversed());
        return findings;
    }

    /**
     * A producer's findings, worst first: the survey's (its own connections' send buffers), each
     * broker path's and each broker's receive buffer, its configured pipeline of batches on each
     * path, and this host's for the slowest path. A producer's path to a broker is one flow, which
     * all of them hold, so each says the rate once all of that path's remedies are applied. Nothing
     * of a consumer's is judged: its receive buffer, the broker's send buffer, its fetch sizes.
     */
    static List<Finding> producer(
            ClusterSurvey survey,
            Optional<BrokerPaths.BrokerPath> slowest,
            DoctorClient client,
            KernelFacts kernel,
            ProducerPipeline pipeline,
            TcpsightConfig config) {
        List<Finding> producerFlow = new ArrayList<>(survey.findings);
        producerFlow.addAll(BrokerPaths.findings(survey.brokers, client, config));
        Map<String, Long> rttByPath = new LinkedHashMap<>();
        for (BrokerPaths.BrokerPath broker : survey.brokers) {
            if (!broker.reachable()) {
                continue;
            }
            ConnectionIdentity path = broker.identity(client);
            rttByPath.put(ClientPaths.key(path), broker.rttMicros());
            survey.configOf(broker)
                    .flatMap(brokerConfig ->
                            BrokerConfigRules.receiveBuffer(brokerConfig, path, broker.rttMicros(), config))
                    .ifPresent(producerFlow::add);
            ClientConfigRules.producerPipeline(path, pipeline, broker.rttMicros(), survey.partitionsPerBroker, config)
                    .ifPresent(producerFlow::add);
        }
        slowest.ifPresent(
                path -> producerFlow.addAll(Diagnosis.host(kernel, path.identity(client), path.rttMicros(), config)));
        List<Finding> findings = new ArrayList<>(
                ClientPaths.annotate(producerFlow, rttByPath, ClientRole.PRODUCER, KafkaSettings.unknown(), config));
        findings.sort(Comparator.comparing(Finding::severity).reversed());
        return findings;
    }

    /** Fetch sizing for the slowest broker's path, from each of the cluster's brokers. */
    static BdpSettings.Recommendation recommend(
            BrokerPaths.BrokerPath slowest,
            int partitionsPerBroker,
            int brokers,
            KernelFacts kernel,
            TcpsightConfig config) {
        return BdpSettings.recommend(new BdpSettings.Input(
                        slowest.rttMicros(),
                        config.targetBytesPerSecond(),
                        partitionsPerBroker,
                        OptionalValues.orNull(kernel.tcpRmemMax()),
                        null,
                        config.get(TcpsightConfig.FETCH_RECORD_BYTES))
                .fetchingFrom(brokers));
    }
}
