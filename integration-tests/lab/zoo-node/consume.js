// A KafkaJS consumer of a topic from its start, for the lab's client zoo.
//
//   node consume.js BROKERS TOPIC GROUP USER PASSWORD [FETCH_BYTES]
//
// The client id is KafkaJS's default ("kafkajs"): KafkaJS announces no software name, and its
// default id is how a broker can know it. FETCH_BYTES, when given, sets maxBytes and
// maxBytesPerPartition. Reads until it is killed and prints a line a second with the records so far.
const { Kafka, logLevel } = require('kafkajs');

const [brokers, topic, groupId, username, password, fetchBytes] = process.argv.slice(2);
const kafka = new Kafka({
  brokers: brokers.split(','),
  sasl: { mechanism: 'plain', username, password },
  logLevel: logLevel.ERROR,
});
const options = { groupId };
if (fetchBytes) {
  options.maxBytes = Number(fetchBytes);
  options.maxBytesPerPartition = Number(fetchBytes);
}
const consumer = kafka.consumer(options);
let records = 0;
setInterval(() => console.log(`records ${records}`), 1000);

(async () => {
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      records += batch.messages.length;
    },
  });
})().catch((error) => {
  console.error('zoo-node:', error);
  process.exit(1);
});
