# A distributed Kafka Connect worker from the Maven-resolved Kafka jars (FileStream connectors
# included). Mount plugins on /opt/connect-plugins.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}
COPY lib/ /opt/kafka/libs/
COPY log4j2.properties /opt/kafka/config/log4j2.properties
COPY connect-worker.sh /opt/kafka/bin/connect-worker.sh
RUN mkdir -p /opt/connect-plugins
EXPOSE 8083
ENTRYPOINT ["/bin/sh", "/opt/kafka/bin/connect-worker.sh"]
