"""A kafka-python consumer of one partition from its start, for the lab's client zoo.

    consume.py BROKERS TOPIC CLIENT_ID USER PASSWORD [RCVBUF]

RCVBUF, when given, is set the way kafka-python 3.x takes a socket buffer: through
socket_options (3.x no longer applies receive_buffer_bytes to the socket). Reads until it is
killed and prints a line a second with the records so far.
"""
import socket
import sys
import time

from kafka import KafkaConsumer, TopicPartition


def main():
    brokers, topic, client_id, user, password = sys.argv[1:6]
    options = {}
    if len(sys.argv) > 6:
        options["socket_options"] = [
            (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
            (socket.SOL_SOCKET, socket.SO_RCVBUF, int(sys.argv[6])),
        ]
    consumer = KafkaConsumer(
        bootstrap_servers=brokers.split(","),
        client_id=client_id,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username=user,
        sasl_plain_password=password,
        enable_auto_commit=False,
        **options,
    )
    partition = TopicPartition(topic, 0)
    consumer.assign([partition])
    consumer.seek_to_beginning(partition)
    records = 0
    last = time.monotonic()
    while True:
        for batch in consumer.poll(timeout_ms=500).values():
            records += len(batch)
        if time.monotonic() - last >= 1:
            print("records %d" % records, flush=True)
            last = time.monotonic()


if __name__ == "__main__":
    main()
