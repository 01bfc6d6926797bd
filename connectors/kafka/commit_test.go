package kafka_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
	"github.com/tablerun/tablerun/vectorized/checkpoint"
)

// committedOffsets returns the offsets group committed for topic, by
// partition (retrying while the group coordinator starts).
func committedOffsets(t *testing.T, c *kafkaenv.Cluster, group, topic string) map[int32]int64 {
	t.Helper()
	cl, err := c.Client()
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var resp kadm.OffsetResponses
	for {
		resp, err = kadm.NewClient(cl).FetchOffsets(ctx, group)
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err)
	out := map[int32]int64{}
	resp.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.Err == nil && o.At >= 0 {
			out[o.Partition] = o.At
		}
	})
	return out
}

// checkpointOffsets reads the kafka source's offsets in the newest
// checkpoint under dir (nil before the first).
func checkpointOffsets(t *testing.T, dir string) map[int32]int64 {
	t.Helper()
	r, err := checkpoint.Open(dir, nil)
	if err != nil && strings.Contains(err.Error(), "no valid checkpoint") {
		return nil
	}
	require.NoError(t, err)
	out := map[int32]int64{}
	for _, op := range r.Operators() {
		if !strings.Contains(op, "TableSourceScan") {
			continue
		}
		require.NoError(t, r.Reader(op, 0, 1).Read("offsets", func(rec arrow.RecordBatch) error {
			part, off := rec.Column(1).(*array.Int32), rec.Column(2).(*array.Int64)
			for i := 0; i < int(rec.NumRows()); i++ {
				out[part.Value(i)] = off.Value(i)
			}
			return nil
		}))
	}
	return out
}

// With properties.group.id and checkpoints, the source commits the
// offsets of each completed checkpoint to the group (Flink's
// commit.offsets.on.checkpoint): they equal the checkpoint's positions,
// and a later job in group-offsets mode, restored from no checkpoint,
// reads exactly the records after them.
func TestOffsetsCommittedOnCheckpoint(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 2)
	batch := func(from, to int) {
		for p := int32(0); p < 2; p++ {
			var vals []string
			for i := from; i < to; i++ {
				vals = append(vals, fmt.Sprintf(`{"id":%d}`, int(p)*1000+i))
			}
			produce(t, c, topic, p, vals...)
		}
	}
	batch(0, 30)
	dir := t.TempDir()
	chk := filepath.Join(dir, "chk")
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.group.id' = 'g-commit', 'scan.startup.mode' = 'earliest-offset')")
	exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '"+filepath.Join(dir, "out")+"', 'format' = 'csv')")
	exec(t, e, "SET 'table.dml-sync' = 'false'")
	exec(t, e, "SET 'execution.checkpointing.interval' = '200 ms'")
	exec(t, e, "SET 'execution.checkpointing.dir' = '"+chk+"'")
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	want := map[int32]int64{0: 30, 1: 30}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && fmt.Sprint(committedOffsets(t, c, "g-commit", topic)) != fmt.Sprint(want) {
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, want, committedOffsets(t, c, "g-commit", topic))
	exec(t, e, "STOP JOB '"+res.JobID()+"'")
	require.Len(t, visibleLines(t, filepath.Join(dir, "out")), 60)
	require.Equal(t, checkpointOffsets(t, chk), committedOffsets(t, c, "g-commit", topic))

	// A new job in group-offsets mode (the default with a group id) and no
	// checkpoint resumes after the committed offsets.
	batch(30, 35)
	b := core.NewTableEnvironment(core.InBatchMode())
	exec(t, b, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.group.id' = 'g-commit', 'scan.bounded.mode' = 'latest-offset')")
	require.Equal(t, []string{"1030", "1031", "1032", "1033", "1034", "30", "31", "32", "33", "34"}, rowsOf(exec(t, b, "SELECT id FROM src")))
	// A batch job has no checkpoints: it commits nothing.
	require.Equal(t, want, committedOffsets(t, c, "g-commit", topic))
}

// The savepoint of STOP JOB ... WITH SAVEPOINT commits its offsets too,
// before the source closes (here the only checkpoint of the job).
func TestOffsetsCommittedOnSavepoint(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 2)
	produce(t, c, topic, 0, `{"id":1}`, `{"id":2}`, `{"id":3}`)
	produce(t, c, topic, 1, `{"id":4}`)
	dir := t.TempDir()
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.group.id' = 'g-sp', 'scan.startup.mode' = 'earliest-offset')")
	exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole')")
	exec(t, e, "SET 'table.dml-sync' = 'false'")
	exec(t, e, "SET 'execution.checkpointing.interval' = '1 h'")
	exec(t, e, "SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'")
	exec(t, e, "SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'")
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	time.Sleep(2 * time.Second)
	stopped := exec(t, e, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")
	require.Equal(t, map[int32]int64{0: 3, 1: 1}, checkpointOffsets(t, path))
	require.Equal(t, map[int32]int64{0: 3, 1: 1}, committedOffsets(t, c, "g-sp", topic))
}

// 'properties.commit.offsets.on.checkpoint' = 'false' commits nothing;
// asking for commits without a group id fails as Flink's builder does.
func TestOffsetCommitOff(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 1)
	produce(t, c, topic, 0, `{"id":1}`, `{"id":2}`)
	chk := t.TempDir()
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.group.id' = 'g-off', 'properties.commit.offsets.on.checkpoint' = 'false', 'scan.startup.mode' = 'earliest-offset')")
	exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole')")
	exec(t, e, "SET 'table.dml-sync' = 'false'")
	exec(t, e, "SET 'execution.checkpointing.interval' = '100 ms'")
	exec(t, e, "SET 'execution.checkpointing.dir' = '"+chk+"'")
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && fmt.Sprint(checkpointOffsets(t, chk)) != fmt.Sprint(map[int32]int64{0: 2}) {
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, map[int32]int64{0: 2}, checkpointOffsets(t, chk))
	time.Sleep(500 * time.Millisecond)
	exec(t, e, "STOP JOB '"+res.JobID()+"'")
	require.Empty(t, committedOffsets(t, c, "g-off", topic))

	exec(t, e, "CREATE TABLE nogroup (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.commit.offsets.on.checkpoint' = 'true', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
	exec(t, e, "SET 'table.dml-sync' = 'true'")
	_, err := e.ExecuteSQL(context.Background(), "INSERT INTO snk SELECT id FROM nogroup")
	require.ErrorContains(t, err, "Property group.id is required when offset commit is enabled")
}
