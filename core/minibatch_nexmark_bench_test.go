package core

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// BenchmarkNexmarkHotKeyAggregation measures the aggregation path alone —
// exchange, mini-batch, local and global aggregation — under Nexmark's
// hot-key skew: the bids (auction, bidder, price, day) of NEXMARK_BENCH_EVENTS
// generated Nexmark events (default 4 M) are generated once, before the
// timer, and served from memory (FromRecords, dealt round-robin to the
// scan instances), so the generator's cost is out of the measurement.
// Every configuration's final results are compared with per-record
// aggregation at parallelism 1.
//
//	go test ./core -run XXX -bench NexmarkHotKeyAggregation -benchtime 3x
func BenchmarkNexmarkHotKeyAggregation(b *testing.B) {
	events := 4_000_000
	if v := os.Getenv("NEXMARK_BENCH_EVENTS"); v != "" {
		if _, err := fmt.Sscan(v, &events); err != nil {
			b.Fatal(err)
		}
	}
	schema, recs, rows := nexmarkBids(b, events)
	b.Logf("%d bids of %d events in %d batches", rows, events, len(recs))
	queries := []struct{ name, sql string }{
		{"qskew", "SELECT auction, COUNT(*), SUM(price), MAX(price) FROM bids GROUP BY auction"},
		{"qhot", "SELECT `day`, COUNT(*), SUM(price), MAX(price) FROM bids GROUP BY `day`"},
		// q15's distinct counts on its hot day key
		{"qdistinct", "SELECT `day`, COUNT(*), COUNT(DISTINCT bidder), COUNT(DISTINCT auction) FROM bids GROUP BY `day`"},
	}
	minibatch := []string{
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '1 s'",
		"SET 'table.exec.mini-batch.size' = '50000'",
	}
	configs := []struct {
		name string
		sets []string
	}{
		{"p1/per-record", []string{"SET 'table.exec.resource.default-parallelism' = '1'"}},
		{"p1/mini-batch", append([]string{"SET 'table.exec.resource.default-parallelism' = '1'",
			"SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'"}, minibatch...)},
		{"p2/mini-batch/ONE_PHASE", append([]string{"SET 'table.exec.resource.default-parallelism' = '2'",
			"SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'"}, minibatch...)},
		{"p2/mini-batch/TWO_PHASE", append([]string{"SET 'table.exec.resource.default-parallelism' = '2'",
			"SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'"}, minibatch...)},
	}
	for _, q := range queries {
		want := batchRows(b, schema, recs, q.sql)
		for _, c := range configs {
			b.Run(q.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					e := streamEnvOver(b, schema, recs, c.sets)
					exec(b, e, "CREATE TABLE snk (k STRING, c BIGINT, s BIGINT, m BIGINT) WITH ('connector' = 'blackhole')")
					exec(b, e, "INSERT INTO snk SELECT CAST(k AS STRING), c, s, m FROM ("+q.sql+") AS t(k, c, s, m)")
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mbids/s")
				b.StopTimer()
				// the final result of the changelog is the batch result
				e := streamEnvOver(b, schema, recs, c.sets)
				got, _ := materialize(b, exec(b, e, q.sql))
				if strings.Join(want, "\n") != strings.Join(got, "\n") {
					b.Fatalf("%s: the final result differs from batch mode", c.name)
				}
			})
		}
	}
}

// streamEnvOver returns a streaming environment with the bids in table
// bids and the given SET statements run.
func streamEnvOver(b *testing.B, schema *arrow.Schema, recs []arrow.RecordBatch, sets []string) *TableEnvironment {
	e := NewTableEnvironment(InStreamingMode())
	if err := e.FromRecords("bids", schema, recs); err != nil {
		b.Fatal(err)
	}
	for _, s := range sets {
		exec(b, e, s)
	}
	return e
}

// batchRows returns the sorted rows of query in batch mode over the bids.
func batchRows(b *testing.B, schema *arrow.Schema, recs []arrow.RecordBatch, query string) []string {
	e := NewTableEnvironment(InBatchMode())
	if err := e.FromRecords("bids", schema, recs); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, r := range exec(b, e, query).Rows() {
		out = append(out, fmt.Sprint(r))
	}
	sort.Strings(out)
	return out
}

// nexmarkBids generates the bids of a bounded Nexmark stream of n events,
// as (auction, bidder, price, day) batches.
func nexmarkBids(b *testing.B, n int) (*arrow.Schema, []arrow.RecordBatch, int64) {
	b.Helper()
	e := NewTableEnvironment(InBatchMode())
	runNexmark(b, e, nexmarkScript(b, "q0", n)) // the generator's DDL and views
	tbl, err := e.SQLQuery("SELECT auction, bidder, price, DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day` FROM bid")
	if err != nil {
		b.Fatal(err)
	}
	var recs []arrow.RecordBatch
	var schema *arrow.Schema
	var rows int64
	start := time.Now()
	err = tbl.ExecuteArrow(context.Background(), func(rec arrow.RecordBatch) error {
		rec.Retain()
		recs = append(recs, rec)
		schema = rec.Schema()
		rows += rec.NumRows()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated in %v", time.Since(start))
	return schema, recs, rows
}
