#!/bin/sh
# Writes worker.properties from defaults plus every CONNECT_CFG_* variable
# (CONNECT_CFG_BOOTSTRAP_SERVERS -> bootstrap.servers) and starts a distributed worker.
set -eu
config=/opt/kafka/config/worker.properties
cat > "$config" <<PROPERTIES
group.id=tcpsight-lab
config.storage.topic=connect-configs
offset.storage.topic=connect-offsets
status.storage.topic=connect-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
listeners=http://0.0.0.0:8083
plugin.path=/opt/connect-plugins
plugin.discovery=service_load
offset.flush.interval.ms=1000
PROPERTIES
env | grep '^CONNECT_CFG_' | while IFS='=' read -r key value; do
  echo "$(echo "${key#CONNECT_CFG_}" | tr 'A-Z_' 'a-z.')=$value" >> "$config"
done
exec java ${KAFKA_HEAP_OPTS:--Xmx512m} -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties \
  -cp '/opt/kafka/libs/*' org.apache.kafka.connect.cli.ConnectDistributed "$config"
