"""A confluent-kafka (librdkafka) producer, 1,000-byte records as fast as it takes them.

Usage: produce_confluent.py BOOTSTRAP TOPIC CLIENT_ID SECONDS [KEY=VALUE ...]
librdkafka's defaults, but for the settings given (librdkafka's own keys).
librdkafka pushes its own metrics to the broker (KIP-714, enable.metrics.push, on by default since
librdkafka 2.5) when the broker's subscription asks for them. Prints "produced N" at the end.
"""
import sys
import time

from confluent_kafka import Producer, libversion


def main():
    bootstrap, topic, client_id, seconds = sys.argv[1:5]
    config = {"bootstrap.servers": bootstrap, "client.id": client_id}
    for setting in sys.argv[5:]:
        key, value = setting.split("=", 1)
        config[key] = value
    producer = Producer(config)
    print("librdkafka %s" % libversion()[0], flush=True)
    value = b"x" * 1000
    produced = 0
    end = time.monotonic() + float(seconds)
    report = time.monotonic() + 5
    while time.monotonic() < end:
        if time.monotonic() >= report:  # what it took so far, and what waits in its own queue
            print("produced %d, queued %d" % (produced, len(producer)), flush=True)
            report += 5
        try:
            producer.produce(topic, value)
            produced += 1
        except BufferError:
            producer.poll(0.05)  # its queue is full: let it send
        producer.poll(0)
    producer.flush(10)
    print("produced %d" % produced, flush=True)


if __name__ == "__main__":
    main()
