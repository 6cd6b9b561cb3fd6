"""A confluent-kafka (librdkafka) producer with its defaults, 1,000-byte records as fast as it takes them.

Usage: produce_confluent.py BOOTSTRAP TOPIC CLIENT_ID SECONDS
librdkafka pushes its own metrics to the broker (KIP-714, enable.metrics.push, on by default since
librdkafka 2.5) when the broker's subscription asks for them. Prints "produced N" at the end.
"""
import sys
import time

from confluent_kafka import Producer, libversion


def main():
    bootstrap, topic, client_id, seconds = sys.argv[1:5]
    producer = Producer({"bootstrap.servers": bootstrap, "client.id": client_id})
    print("librdkafka %s" % libversion()[0], flush=True)
    value = b"x" * 1000
    produced = 0
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end:
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
