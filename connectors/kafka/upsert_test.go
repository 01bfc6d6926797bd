package kafka_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
)

// produceKV writes keyed records ("<null>" values are tombstones) to
// partition 0.
func produceKV(t *testing.T, c *kafkaenv.Cluster, topic string, kvs ...string) {
	t.Helper()
	cl, err := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for i := 0; i < len(kvs); i += 2 {
		r := &kgo.Record{Topic: topic, Key: []byte(kvs[i])}
		if kvs[i+1] != "<null>" {
			r.Value = []byte(kvs[i+1])
		}
		recs = append(recs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
}

// changes reads n changes of a streaming query, then cancels it.
func changes(t *testing.T, e *core.TableEnvironment, sql string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.ExecuteSQL(ctx, sql)
	require.NoError(t, err)
	defer res.Close()
	var out []string
	for k, row := range res.Changes() {
		var cells []string
		for _, v := range row {
			cells = append(cells, fmt.Sprint(v))
		}
		out = append(out, k.String()+"["+strings.Join(cells, ", ")+"]")
		if len(out) == n {
			break
		}
	}
	return out
}

func upsertTable(name, topic, bootstrap string, extra ...string) string {
	opts := append([]string{"'connector' = 'upsert-kafka'", "'topic' = '" + topic + "'",
		"'properties.bootstrap.servers' = '" + bootstrap + "'", "'key.format' = 'json'", "'value.format' = 'json'"}, extra...)
	return fmt.Sprintf("CREATE TABLE %s (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (%s)", name, strings.Join(opts, ", "))
}

// upsert-kafka reads an upsert changelog: the planner puts Flink's
// ChangelogNormalize over the scan, which turns the latest value per key
// and the tombstones into +I, -U/+U and -D.
func TestUpsertKafkaRead(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 1)
	produceKV(t, c, topic,
		`{"k":"a"}`, `{"k":"a","v":1}`,
		`{"k":"b"}`, `{"k":"b","v":2}`,
		`{"k":"a"}`, `{"k":"a","v":3}`,
		`{"k":"a"}`, `{"k":"a","v":3}`, // the same row again: no change
		`{"k":"b"}`, "<null>",
		`{"k":"c"}`, "<null>", // a tombstone of an unknown key: dropped
		`{"k":"c"}`, `{"k":"c","v":5}`)
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, upsertTable("u", topic, c.Bootstrap()))
	plan := fmt.Sprint(exec(t, e, "EXPLAIN CHANGELOG_MODE SELECT * FROM u").Rows()[0][0])
	require.Contains(t, plan, `ChangelogNormalize(key=[k], changelogMode=[I,UB,UA,D])
+- Exchange(distribution=[hash[k]], changelogMode=[I,UA,D])
   +- TableSourceScan(table=[[default_catalog, default_database, u]], fields=[k, v], changelogMode=[I,UA,D])`)
	require.Equal(t, []string{"+I[a, 1]", "+I[b, 2]", "-U[a, 1]", "+U[a, 3]", "-D[b, 2]", "+I[c, 5]"},
		changes(t, e, "SELECT * FROM u", 6))
	// downstream operators take the normalized changelog
	require.Equal(t, []string{"+I[1]", "-U[1]", "+U[2]", "-U[2]", "+U[1]", "-U[1]", "+U[2]"},
		changes(t, e, "SELECT COUNT(*) FROM u", 7))
}

// upsert-kafka writes updates as upserts: -U rows are dropped, +U and +I
// are the key's new value, -D a tombstone; sink.buffer-flush.* keeps the
// last change per key between flushes.
func TestUpsertKafkaWrite(t *testing.T) {
	c := kafkaenv.Require(t)
	for _, buffered := range []bool{false, true} {
		topic := newTopic(t, c, 2)
		e := core.NewTableEnvironment(core.InStreamingMode())
		var extra []string
		if buffered {
			extra = []string{"'sink.buffer-flush.max-rows' = '1000'", "'sink.buffer-flush.interval' = '1 h'"}
		}
		exec(t, e, fmt.Sprintf("CREATE TABLE cnt (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'key.format' = 'json', 'value.format' = 'json'%s)",
			topic, c.Bootstrap(), strings.Join(append([]string{""}, extra...), ", ")))
		exec(t, e, "INSERT INTO cnt SELECT k, COUNT(*) FROM (VALUES ('a'), ('b'), ('a'), ('a')) AS t(k) GROUP BY k")
		cl, err := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		require.NoError(t, err)
		want := 4
		if buffered {
			want = 2
		}
		var got []string
		last := map[string]string{}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		for len(got) < want && ctx.Err() == nil {
			cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				got = append(got, string(r.Key)+" "+string(r.Value))
				last[string(r.Key)] = string(r.Value)
			})
		}
		cancel()
		cl.Close()
		require.Len(t, got, want, "%v", got)
		require.Equal(t, map[string]string{`{"k":"a"}`: `{"k":"a","n":3}`, `{"k":"b"}`: `{"k":"b","n":1}`}, last)
	}
}

// Flink's checks of upsert-kafka tables.
func TestUpsertKafkaOptionErrors(t *testing.T) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE nokey (k STRING, v BIGINT) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'key.format' = 'json', 'value.format' = 'json')")
	_, err := e.ExecuteSQL(context.Background(), "INSERT INTO nokey VALUES ('a', 1)")
	require.ErrorContains(t, err, "'upsert-kafka' tables require to define a PRIMARY KEY constraint.")
	exec(t, e, "CREATE TABLE miss (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'value.format' = 'json')")
	_, err = e.ExecuteSQL(context.Background(), "INSERT INTO miss VALUES ('a', 1)")
	require.ErrorContains(t, err, "One or more required options are missing.\n\nMissing required options are:\n\nkey.format")
}

// lastValues reads a topic to its end and returns the last value per key.
func lastValues(t *testing.T, c *kafkaenv.Cluster, topic string, n int) map[string]string {
	t.Helper()
	cl, err := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	require.NoError(t, err)
	defer cl.Close()
	last := map[string]string{}
	seen := 0
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for seen < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			seen++
			last[string(r.Key)] = string(r.Value)
		})
	}
	return last
}

// ChangelogNormalize's kept rows are in the checkpoints: restored at
// another parallelism, an update of a key read before the savepoint
// retracts the old row (without the state it would be a new +I and the
// count of the old value would stay).
func TestUpsertKafkaNormalizeRestore(t *testing.T) {
	c := kafkaenv.Require(t)
	in, out := newTopic(t, c, 2), newTopic(t, c, 1)
	produceKV(t, c, in, `{"k":"a"}`, `{"k":"a","v":1}`, `{"k":"b"}`, `{"k":"b","v":1}`, `{"k":"c"}`, `{"k":"c","v":3}`)
	dir := t.TempDir()
	setup := func(e *core.TableEnvironment) {
		exec(t, e, upsertTable("u", in, c.Bootstrap()))
		exec(t, e, fmt.Sprintf("CREATE TABLE cnt (v BIGINT, n BIGINT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'key.format' = 'json', 'value.format' = 'json')", out, c.Bootstrap()))
		for _, s := range []string{"SET 'table.dml-sync' = 'false'", "SET 'execution.checkpointing.interval' = '100 ms'",
			"SET 'execution.checkpointing.dir' = '" + dir + "/chk'", "SET 'execution.checkpointing.savepoint-dir' = '" + dir + "/sp'"} {
			exec(t, e, s)
		}
	}
	e := core.NewTableEnvironment(core.InStreamingMode())
	setup(e)
	res := exec(t, e, "INSERT INTO cnt SELECT v, COUNT(*) FROM u GROUP BY v")
	require.Equal(t, map[string]string{`{"v":1}`: `{"v":1,"n":2}`, `{"v":3}`: `{"v":3,"n":1}`}, lastValues(t, c, out, 3))
	stopped := exec(t, e, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")

	produceKV(t, c, in, `{"k":"a"}`, `{"k":"a","v":3}`)
	again := core.NewTableEnvironment(core.InStreamingMode())
	setup(again)
	exec(t, again, "SET 'table.exec.resource.default-parallelism' = '2'")
	exec(t, again, "SET 'execution.savepoint.path' = '"+path+"'")
	res2 := exec(t, again, "INSERT INTO cnt SELECT v, COUNT(*) FROM u GROUP BY v")
	got := lastValues(t, c, out, 5)
	exec(t, again, "STOP JOB '"+res2.JobID()+"'")
	require.Equal(t, map[string]string{`{"v":1}`: `{"v":1,"n":1}`, `{"v":3}`: `{"v":3,"n":2}`}, got)
}

// upsert-kafka reads METADATA columns as kafka does; ChangelogNormalize
// carries them (the -U row has the offset of the record it retracts).
func TestUpsertKafkaMetadata(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 1)
	produceKV(t, c, topic, `{"k":"a"}`, `{"k":"a","v":1}`, `{"k":"a"}`, `{"k":"a","v":3}`)
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, fmt.Sprintf("CREATE TABLE u (k STRING, v BIGINT, off BIGINT METADATA FROM 'offset' VIRTUAL, PRIMARY KEY (k) NOT ENFORCED) "+
		"WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'key.format' = 'json', 'value.format' = 'json')", topic, c.Bootstrap()))
	require.Equal(t, []string{"+I[a, 1, 0]", "-U[a, 1, 0]", "+U[a, 3, 1]"}, changes(t, e, "SELECT k, v, off FROM u", 3))
}
