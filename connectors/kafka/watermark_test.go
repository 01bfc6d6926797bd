package kafka_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
	"github.com/tablerun/tablerun/vectorized/checkpoint"
)

// windowJob runs a 10-second TUMBLE count over topic in into topic out,
// with the extra table options and session settings, and returns a stop
// function.
func windowJob(t *testing.T, c *kafkaenv.Cluster, in, out string, opts []string, sets ...string) func() {
	return windowJobOf(t, c, eventColumns, in, out, opts, sets...)
}

const eventColumns = "id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"

func windowJobOf(t *testing.T, c *kafkaenv.Cluster, columns, in, out string, opts []string, sets ...string) func() {
	t.Helper()
	e := core.NewTableEnvironment(core.InStreamingMode())
	all := append([]string{"'connector' = 'kafka'", "'topic' = '" + in + "'", "'format' = 'json'",
		"'properties.bootstrap.servers' = '" + c.Bootstrap() + "'", "'scan.startup.mode' = 'earliest-offset'"}, opts...)
	exec(t, e, "CREATE TABLE ev ("+columns+") WITH ("+strings.Join(all, ", ")+")")
	exec(t, e, "CREATE TABLE res (ws STRING, cnt BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+out+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'sink.delivery-guarantee' = 'none')")
	exec(t, e, "SET 'table.dml-sync' = 'false'")
	for _, s := range sets {
		exec(t, e, s)
	}
	res := exec(t, e, "INSERT INTO res SELECT CAST(window_start AS STRING), COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end")
	return func() { exec(t, e, "STOP JOB '"+res.JobID()+"'") }
}

func event(id int, sec int) string {
	return fmt.Sprintf(`{"id":%d,"ts":"2024-01-01 00:00:%02d"}`, id, sec)
}

// waitRecords polls topic until it holds n records or d passed.
func waitRecords(t *testing.T, c *kafkaenv.Cluster, topic string, n int, d time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := consume(t, c, topic, false)
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Watermarks are generated per partition and the source's is the minimum
// over them: a partition without records holds the window back, unless
// it is idle after scan.watermark.idle-timeout (or the session's
// table.exec.source.idle-timeout).
func TestWatermarkPerPartitionIdle(t *testing.T) {
	c := kafkaenv.Require(t)
	run := func(opts []string, sets ...string) []string {
		in, out := newTopic(t, c, 3), newTopic(t, c, 1)
		stop := windowJob(t, c, in, out, opts, sets...)
		defer stop()
		// Partitions 0 and 1 get records once partition 2 has been
		// without any for longer than the timeout; partition 2 gets none.
		// Both are active before either passes the window's end, so which
		// of them is read first does not matter.
		time.Sleep(1500 * time.Millisecond)
		produce(t, c, in, 0, event(1, 1))
		produce(t, c, in, 1, event(2, 2))
		produce(t, c, in, 0, event(3, 5), event(4, 12))
		produce(t, c, in, 1, event(5, 15))
		return waitRecords(t, c, out, 1, 5*time.Second)
	}
	require.Empty(t, run(nil), "an empty partition without an idle timeout holds the watermark at its minimum")
	want := []string{`{"ws":"2024-01-01 00:00:00.000","cnt":3}`}
	require.Equal(t, want, run([]string{"'scan.watermark.idle-timeout' = '1 s'"}))
	require.Equal(t, want, run(nil, "SET 'table.exec.source.idle-timeout' = '1 s'"))
	// four source instances: the exchange takes the minimum over them; an
	// instance whose partitions are all idle is idle, and so is the one
	// that owns no partition
	require.Equal(t, want, run([]string{"'scan.watermark.idle-timeout' = '1 s'"}, "SET 'table.exec.resource.default-parallelism' = '4'"))
}

// Rows of a partition that lags behind another are not late: the
// partition ahead does not advance the watermark alone (a single
// watermark over the interleaved partitions would drop the window
// [0 s, 10 s)).
func TestWatermarkPerPartitionNotLate(t *testing.T) {
	c := kafkaenv.Require(t)
	in, out := newTopic(t, c, 2), newTopic(t, c, 1)
	chk := t.TempDir()
	stop := windowJob(t, c, in, out, nil, "SET 'execution.checkpointing.interval' = '200 ms'", "SET 'execution.checkpointing.dir' = '"+chk+"'")
	defer stop()
	produce(t, c, in, 1, event(1, 20), event(2, 25))
	time.Sleep(1500 * time.Millisecond) // read and emitted before partition 0's
	produce(t, c, in, 0, event(3, 1), event(4, 5), event(5, 32))
	require.Equal(t, []string{`{"ws":"2024-01-01 00:00:00.000","cnt":2}`}, waitRecords(t, c, out, 1, 30*time.Second))
	// partition 1 (24 s) holds the watermark below 30 s: [20 s, 30 s) waits
	time.Sleep(time.Second)
	require.Len(t, consume(t, c, out, false), 1)
	produce(t, c, in, 1, event(6, 41))
	// now partition 0 (31 s) holds it: [20 s, 30 s) fires, [30 s, 40 s) waits
	require.Equal(t, []string{`{"ws":"2024-01-01 00:00:00.000","cnt":2}`, `{"ws":"2024-01-01 00:00:20.000","cnt":2}`},
		waitRecords(t, c, out, 2, 30*time.Second))
	time.Sleep(time.Second)
	require.Len(t, consume(t, c, out, false), 2)
	// the assigner over the pushed watermarks checkpoints its watermark
	r, err := checkpoint.Open(chk, nil)
	require.NoError(t, err)
	require.Contains(t, strings.Join(r.Operators(), " "), "WatermarkAssigner")
}

// The same with a computed rowtime column (the assigner reads a Calc):
// the expression is evaluated over the scan's rows, per partition.
func TestWatermarkPerPartitionComputedRowtime(t *testing.T) {
	c := kafkaenv.Require(t)
	in, out := newTopic(t, c, 2), newTopic(t, c, 1)
	stop := windowJobOf(t, c, "id BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in, out, nil,
		"SET 'table.local-time-zone' = 'UTC'")
	defer stop()
	ev := func(id, sec int) string { return fmt.Sprintf(`{"id":%d,"ms":%d}`, id, 1704067200000+int64(sec)*1000) }
	produce(t, c, in, 1, ev(1, 20), ev(2, 25))
	time.Sleep(1500 * time.Millisecond)
	produce(t, c, in, 0, ev(3, 1), ev(4, 5), ev(5, 32))
	require.Equal(t, []string{`{"ws":"2024-01-01 00:00:00.000","cnt":2}`}, waitRecords(t, c, out, 1, 30*time.Second))
}

// upsert-kafka's watermark is assigned after ChangelogNormalize, so its
// partitions have none of their own: the option fails rather than being
// ignored.
func TestWatermarkIdleTimeoutUpsertKafka(t *testing.T) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE u (id BIGINT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json', 'scan.watermark.idle-timeout' = '1 s')")
	_, err := e.ExecuteSQL(context.Background(), "SELECT * FROM u")
	require.ErrorContains(t, err, "not supported yet: 'scan.watermark.idle-timeout' on the 'upsert-kafka' table")
}
