// zoo-go: a consumer of one partition from its start, in one of three Go Kafka libraries, for the
// lab's client zoo. It reads until it is killed and prints a line a second with the records so far.
//
//	zoo-go -library franz-go|sarama|kafka-go -brokers host:port -topic t -client-id id \
//	       -user u -password p [-fetch-bytes n]
//
// -fetch-bytes sets the library's own fetch-size keys (both the response's and the partition's
// limit where it has two); 0 leaves the library's defaults.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
	kafkaplain "github.com/segmentio/kafka-go/sasl/plain"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

var records atomic.Int64

func main() {
	library := flag.String("library", "", "franz-go, sarama or kafka-go")
	brokers := flag.String("brokers", "", "bootstrap servers, comma-separated")
	topic := flag.String("topic", "", "the topic; partition 0 is read")
	clientID := flag.String("client-id", "", "the client id; empty keeps the library's default")
	user := flag.String("user", "", "SASL/PLAIN user")
	password := flag.String("password", "", "SASL/PLAIN password")
	fetchBytes := flag.Int("fetch-bytes", 0, "the library's fetch-size keys; 0 for its defaults")
	flag.Parse()
	seeds := strings.Split(*brokers, ",")
	go func() {
		for range time.Tick(time.Second) {
			fmt.Printf("records %d\n", records.Load())
		}
	}()
	var err error
	switch *library {
	case "franz-go":
		err = franzGo(seeds, *topic, *clientID, *user, *password, *fetchBytes)
	case "sarama":
		err = saramaConsumer(seeds, *topic, *clientID, *user, *password, *fetchBytes)
	case "kafka-go":
		err = kafkaGo(seeds, *topic, *clientID, *user, *password, *fetchBytes)
	default:
		err = fmt.Errorf("-library %q is not one of franz-go, sarama, kafka-go", *library)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "zoo-go:", err)
		os.Exit(1)
	}
}

func franzGo(seeds []string, topic, clientID, user, password string, fetchBytes int) error {
	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.SASL(plain.Auth{User: user, Pass: password}.AsMechanism()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
	}
	if clientID != "" {
		opts = append(opts, kgo.ClientID(clientID))
	}
	if fetchBytes > 0 {
		opts = append(opts, kgo.FetchMaxBytes(int32(fetchBytes)), kgo.FetchMaxPartitionBytes(int32(fetchBytes)))
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer client.Close()
	for {
		fetches := client.PollFetches(context.Background())
		fetches.EachError(func(t string, p int32, err error) {
			fmt.Fprintf(os.Stderr, "zoo-go: fetch %s/%d: %v\n", t, p, err)
		})
		records.Add(int64(fetches.NumRecords()))
	}
}

func saramaConsumer(seeds []string, topic, clientID, user, password string, fetchBytes int) error {
	config := sarama.NewConfig()
	if clientID != "" {
		config.ClientID = clientID
	}
	config.Version = sarama.V3_6_0_0 // ApiVersions v3, which carries the software name (KIP-511)
	config.Net.SASL.Enable = true
	config.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	config.Net.SASL.User = user
	config.Net.SASL.Password = password
	if fetchBytes > 0 {
		config.Consumer.Fetch.Default = int32(fetchBytes)
		config.Consumer.Fetch.Max = int32(fetchBytes)
	}
	consumer, err := sarama.NewConsumer(seeds, config)
	if err != nil {
		return err
	}
	defer consumer.Close()
	partition, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		return err
	}
	go func() {
		for err := range partition.Errors() {
			fmt.Fprintln(os.Stderr, "zoo-go:", err)
		}
	}()
	for range partition.Messages() {
		records.Add(1)
	}
	return fmt.Errorf("sarama's partition consumer ended")
}

func kafkaGo(seeds []string, topic, clientID, user, password string, fetchBytes int) error {
	config := kafka.ReaderConfig{
		Brokers:   seeds,
		Topic:     topic,
		Partition: 0,
		Dialer: &kafka.Dialer{
			ClientID:      clientID, // empty: kafka-go's default, "PROGRAM@HOST (github.com/segmentio/kafka-go)"
			Timeout:       10 * time.Second,
			SASLMechanism: kafkaplain.Mechanism{Username: user, Password: password},
		},
	}
	if fetchBytes > 0 {
		config.MaxBytes = fetchBytes
	}
	reader := kafka.NewReader(config)
	defer reader.Close()
	if err := reader.SetOffset(kafka.FirstOffset); err != nil {
		return err
	}
	for {
		if _, err := reader.ReadMessage(context.Background()); err != nil {
			return err
		}
		records.Add(1)
	}
}
