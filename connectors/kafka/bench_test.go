package kafka_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
)

// benchBids is the number of Nexmark bids the benchmark reads
// ($TABLERUN_KAFKA_BENCH_BIDS, 1,000,000 by default).
var benchBids = func() int {
	if v, err := strconv.Atoi(os.Getenv("TABLERUN_KAFKA_BENCH_BIDS")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}()

// BenchmarkKafkaGroupBy reads Nexmark bids as JSON records from a
// one-partition topic (written once, by tablerun itself from the nexmark
// generator: the produce rate is reported as produce-events/s) and runs
// Kafka → GROUP BY → blackhole over them: a bounded scan
// (scan.bounded.mode latest-offset) of every bid, decoded from JSON, and
// a GROUP BY auction with COUNT, MAX(price) and SUM(price). The figure is
// events/s of consumption; with -cpu 1 it is per core (the broker runs on
// the other one).
//
//	go test -run '^$' -bench KafkaGroupBy -benchtime 3x -cpu 1 ./connectors/kafka
func BenchmarkKafkaGroupBy(b *testing.B) {
	c := kafkaenv.Require(b)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	topic := fmt.Sprintf("bench-bids-%d", time.Now().UnixNano())
	require.NoError(b, c.CreateTopic(ctx, topic, 1))
	e := core.NewTableEnvironment(core.InBatchMode())
	ddl := func(name, extra string) string {
		return fmt.Sprintf(`CREATE TABLE %s (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING)
			WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json'%s)`, name, topic, c.Bootstrap(), extra)
	}
	for _, s := range []string{
		fmt.Sprintf(`CREATE TABLE gen (event_type INT, bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING>)
			WITH ('connector' = 'nexmark', 'events.num' = '%d', 'person.proportion' = '0', 'auction.proportion' = '0', 'bid.proportion' = '1')`, benchBids),
		ddl("bids_out", ""),
		ddl("bids", ", 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"),
		"CREATE TABLE bh (auction BIGINT, n BIGINT, top BIGINT, total BIGINT) WITH ('connector' = 'blackhole')",
	} {
		exec(b, e, s)
	}
	start := time.Now()
	exec(b, e, "INSERT INTO bids_out SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, bid.dateTime, bid.extra FROM gen WHERE event_type = 2")
	b.Logf("produce: %d bids in %s (%.0f events/s)", benchBids, time.Since(start).Round(time.Millisecond), float64(benchBids)/time.Since(start).Seconds())
	res := exec(b, e, "SELECT COUNT(*) FROM bids")
	require.Equal(b, int64(benchBids), res.Rows()[0][0])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		exec(b, e, "INSERT INTO bh SELECT auction, COUNT(*), MAX(price), SUM(price) FROM bids GROUP BY auction")
	}
	b.ReportMetric(float64(benchBids)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
