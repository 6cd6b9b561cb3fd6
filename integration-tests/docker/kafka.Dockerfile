# A single-node KRaft broker from the Maven-resolved Kafka jars (no Kafka tarball).
# BASE_IMAGE is any image with a Java 17+ runtime on PATH and /bin/sh; the lab passes one it
# built offline from Debian packages.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
COPY lib/ /opt/kafka/libs/
COPY log4j2.properties /opt/kafka/config/log4j2.properties
COPY kafka-broker.sh /opt/kafka/bin/kafka-broker.sh
EXPOSE 9092
ENTRYPOINT ["/bin/sh", "/opt/kafka/bin/kafka-broker.sh"]
