#!/bin/sh
# Writes server.properties from defaults plus every KAFKA_CFG_* variable
# (KAFKA_CFG_ADVERTISED_LISTENERS -> advertised.listeners), formats storage once, starts Kafka.
set -eu
config=/opt/kafka/config/server.properties
cat > "$config" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9093
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=/var/lib/kafka/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
env | grep '^KAFKA_CFG_' | while IFS='=' read -r key value; do
  echo "$(echo "${key#KAFKA_CFG_}" | tr 'A-Z_' 'a-z.')=$value" >> "$config"
done
classpath='/opt/kafka/libs/*'
java -cp "$classpath" kafka.tools.StorageTool format --ignore-formatted \
  -t "${KAFKA_CLUSTER_ID:-q1Sh-9_ISia_zwGINzRvyQ}" -c "$config"
exec java ${KAFKA_HEAP_OPTS:--Xmx512m} -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties \
  -cp "$classpath" kafka.Kafka "$config"
