package kafka_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
)

func TestMain(m *testing.M) { kafkaenv.Main(m) }

var topicSeq atomic.Int64

// newTopic creates a topic with a name unique in the run.
func newTopic(t *testing.T, c *kafkaenv.Cluster, partitions int) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), topicSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, c.CreateTopic(ctx, name, partitions))
	return name
}

func exec(t testing.TB, e *core.TableEnvironment, sql string) *core.TableResult {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), sql)
	require.NoError(t, err, sql)
	return res
}

// produce writes values (with optional keys) to partition p of topic.
func produce(t *testing.T, c *kafkaenv.Cluster, topic string, p int32, values ...string) {
	t.Helper()
	cl, err := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for _, v := range values {
		r := &kgo.Record{Topic: topic, Partition: p}
		if v != "<null>" {
			r.Value = []byte(v)
		}
		recs = append(recs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
}

// consume reads every record of topic up to its current end (committed:
// with isolation read_committed) and returns the values.
func consume(t *testing.T, c *kafkaenv.Cluster, topic string, committed bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admCl, err := c.Client()
	require.NoError(t, err)
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	var ends kadm.ListedOffsets
	if committed {
		ends, err = adm.ListCommittedOffsets(ctx, topic)
	} else {
		ends, err = adm.ListEndOffsets(ctx, topic)
	}
	require.NoError(t, err)
	opts := []kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords()}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := c.Client(opts...)
	require.NoError(t, err)
	defer cl.Close()
	remaining := map[int32]int64{}
	ends.Each(func(l kadm.ListedOffset) {
		if l.Offset > 0 {
			remaining[l.Partition] = l.Offset
		}
	})
	var out []string
	for len(remaining) > 0 {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consuming %s: %v left", topic, remaining)
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := remaining[r.Partition]; ok {
				if r.Offset+1 >= end {
					delete(remaining, r.Partition)
				}
				if r.Offset < end && !r.Attrs.IsControl() {
					out = append(out, string(r.Value))
				}
			}
		})
	}
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func rowsOf(res *core.TableResult) []string {
	var out []string
	for _, r := range res.Rows() {
		var cells []string
		for _, v := range r {
			cells = append(cells, fmt.Sprint(v))
		}
		out = append(out, strings.Join(cells, ","))
	}
	sort.Strings(out)
	return out
}

func kafkaTable(name, topic, bootstrap string, extra ...string) string {
	opts := []string{"'connector' = 'kafka'", "'topic' = '" + topic + "'",
		"'properties.bootstrap.servers' = '" + bootstrap + "'"}
	opts = append(opts, extra...)
	return fmt.Sprintf("CREATE TABLE %s (id BIGINT, name STRING, price DOUBLE) WITH (%s)", name, strings.Join(opts, ", "))
}

// A batch INSERT into a kafka table writes JSON records; a bounded scan
// (scan.bounded.mode latest-offset) reads them back, split over two
// instances.
func TestRoundTripJSON(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 3)
	e := core.NewTableEnvironment(core.InBatchMode())
	exec(t, e, kafkaTable("k", topic, c.Bootstrap(), "'format' = 'json'",
		"'scan.startup.mode' = 'earliest-offset'", "'scan.bounded.mode' = 'latest-offset'"))
	exec(t, e, "INSERT INTO k VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, CAST(NULL AS STRING), 3.0)")
	got := consume(t, c, topic, false)
	require.ElementsMatch(t, []string{`{"id":1,"name":"a","price":1.5}`, `{"id":2,"name":"b","price":2.5}`, `{"id":3,"name":null,"price":3.0}`}, got)

	exec(t, e, "SET 'table.exec.resource.default-parallelism' = '2'")
	require.Equal(t, []string{"1,a,1.5", "2,b,2.5", "3,<nil>,3"}, rowsOf(exec(t, e, "SELECT * FROM k")))
	require.Equal(t, []string{"2,b"}, rowsOf(exec(t, e, "SELECT id, name FROM k WHERE price > 2 AND price < 3")))
}

// key.format / key.fields / key.fields-prefix / value.fields-include: the
// key columns go to the message key, the rest to the value.
func TestKeyAndValueFormats(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 2)
	e := core.NewTableEnvironment(core.InBatchMode())
	exec(t, e, fmt.Sprintf(`CREATE TABLE k (k_id BIGINT, name STRING, price DOUBLE) WITH ('connector' = 'kafka',
		'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'key.format' = 'json', 'key.fields' = 'k_id',
		'key.fields-prefix' = 'k_', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',
		'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`, topic, c.Bootstrap()))
	exec(t, e, "INSERT INTO k VALUES (7, 'x', 1.0), (8, 'y', 2.0)")
	cl, err := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var got []string
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for len(got) < 2 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)+" "+string(r.Value)) })
	}
	require.ElementsMatch(t, []string{`{"id":7} {"name":"x","price":1.0}`, `{"id":8} {"name":"y","price":2.0}`}, got)
	require.Equal(t, []string{"7,x,1", "8,y,2"}, rowsOf(exec(t, e, "SELECT * FROM k")))
}

// Each startup mode and bounded mode, over records produced to two
// partitions.
func TestStartupAndBoundedModes(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 2)
	produce(t, c, topic, 0, `{"id":1}`, `{"id":2}`, `{"id":3}`)
	produce(t, c, topic, 1, `{"id":10}`, `{"id":11}`)
	time.Sleep(20 * time.Millisecond)
	mid := time.Now().UnixMilli()
	time.Sleep(20 * time.Millisecond)
	produce(t, c, topic, 0, `{"id":4}`)
	produce(t, c, topic, 1, `{"id":12}`)

	ctx := context.Background()
	admCl, err := c.Client()
	require.NoError(t, err)
	defer admCl.Close()
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 2})
	offs.Add(kadm.Offset{Topic: topic, Partition: 1, At: 1})
	_, err = kadm.NewClient(admCl).CommitOffsets(ctx, "g1", offs)
	require.NoError(t, err)

	e := core.NewTableEnvironment(core.InBatchMode())
	query := func(opts ...string) []string {
		exec(t, e, "DROP TEMPORARY TABLE IF EXISTS m")
		all := append([]string{"'connector' = 'kafka'", "'topic' = '" + topic + "'", "'format' = 'json'",
			"'properties.bootstrap.servers' = '" + c.Bootstrap() + "'"}, opts...)
		exec(t, e, "CREATE TEMPORARY TABLE m (id BIGINT) WITH ("+strings.Join(all, ", ")+")")
		return rowsOf(exec(t, e, "SELECT id FROM m"))
	}
	latest := "'scan.bounded.mode' = 'latest-offset'"
	require.Equal(t, []string{"1", "10", "11", "12", "2", "3", "4"}, query("'scan.startup.mode' = 'earliest-offset'", latest))
	require.Empty(t, query("'scan.startup.mode' = 'latest-offset'", latest))
	require.Equal(t, []string{"12", "4"}, query("'scan.startup.mode' = 'timestamp'", fmt.Sprintf("'scan.startup.timestamp-millis' = '%d'", mid), latest))
	require.Equal(t, []string{"11", "12", "3", "4"}, query("'scan.startup.mode' = 'specific-offsets'",
		"'scan.startup.specific-offsets' = 'partition:0,offset:2;partition:1,offset:1'", latest))
	require.Equal(t, []string{"11", "12", "3", "4"}, query("'properties.group.id' = 'g1'", latest)) // group-offsets is the default
	require.Equal(t, []string{"1", "10", "11", "2", "3"}, query("'scan.startup.mode' = 'earliest-offset'",
		"'scan.bounded.mode' = 'timestamp'", fmt.Sprintf("'scan.bounded.timestamp-millis' = '%d'", mid)))
	require.Equal(t, []string{"1", "10", "2"}, query("'scan.startup.mode' = 'earliest-offset'",
		"'scan.bounded.mode' = 'specific-offsets'", "'scan.bounded.specific-offsets' = 'partition:0,offset:2;partition:1,offset:1'"))
	require.Equal(t, []string{"1", "10", "2"}, query("'scan.startup.mode' = 'earliest-offset'",
		"'scan.bounded.mode' = 'group-offsets'", "'properties.group.id' = 'g1'"))

	// group-offsets without a committed offset and no reset policy fails
	_, err = e.ExecuteSQL(ctx, "DROP TEMPORARY TABLE IF EXISTS m")
	require.NoError(t, err)
	exec(t, e, "CREATE TEMPORARY TABLE m (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.group.id' = 'nobody', "+latest+")")
	_, err = e.ExecuteSQL(ctx, "SELECT * FROM m")
	require.ErrorContains(t, err, "Undefined offset with no reset policy for partitions: ["+topic+"-0, "+topic+"-1]")
	require.Len(t, rowsOf(exec(t, e, "SELECT * FROM m /*+ OPTIONS('properties.auto.offset.reset' = 'earliest') */")), 7)
}

// A record whose value does not parse fails the job naming its topic,
// partition and offset; with json.ignore-parse-errors it is skipped.
func TestRecordThatDoesNotParse(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 1)
	produce(t, c, topic, 0, `{"id":1}`, `{"id":`, `{"id":3}`, "<null>")
	e := core.NewTableEnvironment(core.InBatchMode())
	exec(t, e, "CREATE TABLE m (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
	_, err := e.ExecuteSQL(context.Background(), "SELECT * FROM m")
	require.ErrorContains(t, err, "topic '"+topic+"', partition 0, offset 1")
	require.ErrorContains(t, err, `{"id":`)
	exec(t, e, "ALTER TABLE m SET ('json.ignore-parse-errors' = 'true')")
	require.Equal(t, []string{"1", "3"}, rowsOf(exec(t, e, "SELECT * FROM m"))) // the tombstone is skipped too
}

// An unreachable broker fails the statement within the configured
// timeout, saying what it could not reach.
func TestUnreachableBroker(t *testing.T) {
	e := core.NewTableEnvironment(core.InBatchMode())
	exec(t, e, "CREATE TABLE m (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = '127.0.0.1:1', 'properties.default.api.timeout.ms' = '2000', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
	start := time.Now()
	_, err := e.ExecuteSQL(context.Background(), "SELECT * FROM m")
	require.Error(t, err)
	require.Less(t, time.Since(start), 15*time.Second)
	require.ErrorContains(t, err, "Failed to get metadata for topics [t] from Kafka at 127.0.0.1:1 within 2s")
	exec(t, e, "CREATE TABLE s (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = '127.0.0.1:1', 'properties.default.api.timeout.ms' = '2000')")
	start = time.Now()
	_, err = e.ExecuteSQL(context.Background(), "INSERT INTO s VALUES (1)")
	require.Error(t, err)
	require.Less(t, time.Since(start), 15*time.Second)
	require.ErrorContains(t, err, "Failed to get metadata for topic 't' from Kafka at 127.0.0.1:1 within 2s")
}

// Wrong options get Flink's messages.
func TestOptionErrors(t *testing.T) {
	e := core.NewTableEnvironment(core.InBatchMode())
	for _, tc := range []struct{ opts, want string }{
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'scan.startup.mod' = 'earliest-offset'",
			"Unsupported options found for 'kafka'.\n\nUnsupported options:\n\nscan.startup.mod\n\nSupported options:\n\n"},
		{"'topic' = 't', 'format' = 'json'", "One or more required options are missing.\n\nMissing required options are:\n\nproperties.bootstrap.servers"},
		{"'format' = 'json', 'properties.bootstrap.servers' = 'x:1'", "Either 'topic' or 'topic-pattern' must be set."},
		{"'topic' = 't', 'topic-pattern' = 't.*', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1'", "Option 'topic' and 'topic-pattern' shouldn't be set together."},
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'scan.startup.mode' = 'timestamp'", "'scan.startup.timestamp-millis' is required in 'timestamp' startup mode but missing."},
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'scan.startup.mode' = 'specific-offsets', 'scan.startup.specific-offsets' = 'p:0'", "Invalid properties 'scan.startup.specific-offsets' should follow the format 'partition:0,offset:42;partition:1,offset:300', but is 'p:0'."},
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'key.fields' = 'id'", "The option 'key.fields' can only be declared if a key format is defined using 'key.format'."},
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'sink.delivery-guarantee' = 'exactly-once'", "sink.transactional-id-prefix must be specified when using DeliveryGuarantee.EXACTLY_ONCE."},
		{"'topic' = 't', 'format' = 'json', 'properties.bootstrap.servers' = 'x:1', 'json.fail-on-missing-fieldx' = 'true'", "Unsupported options found for 'kafka'.\n\nUnsupported options:\n\njson.fail-on-missing-fieldx"},
	} {
		exec(t, e, "DROP TABLE IF EXISTS m")
		exec(t, e, "CREATE TABLE m (id BIGINT) WITH ('connector' = 'kafka', "+tc.opts+")")
		_, err := e.ExecuteSQL(context.Background(), "INSERT INTO m VALUES (1)")
		require.Error(t, err, tc.opts)
		require.Contains(t, err.Error(), tc.want, tc.opts)
	}
}

// visibleLines reads the committed part files of a filesystem sink.
func visibleLines(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// The source's offsets are in its checkpoints: a job stopped with a
// savepoint at parallelism 1 and restored at parallelism 3 reads exactly
// the records that came after (the exactly-once filesystem sink shows
// every record once).
func TestOffsetsRestoreAtOtherParallelism(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 4)
	var want []string
	for p := int32(0); p < 4; p++ {
		var vals []string
		for i := 0; i < 50; i++ {
			id := int(p)*1000 + i
			vals = append(vals, fmt.Sprintf(`{"id":%d}`, id))
			want = append(want, fmt.Sprint(id))
		}
		produce(t, c, topic, p, vals...)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tables := func(e *core.TableEnvironment, bounded bool) {
		extra := ""
		if bounded {
			extra = ", 'scan.bounded.mode' = 'latest-offset'"
		}
		exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+topic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'scan.startup.mode' = 'earliest-offset'"+extra+")")
		exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '"+out+"', 'format' = 'csv')")
	}
	e := core.NewTableEnvironment(core.InStreamingMode())
	tables(e, false)
	for _, s := range []string{"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '100 ms'",
		"SET 'execution.checkpointing.dir' = '" + filepath.Join(dir, "chk") + "'",
		"SET 'execution.checkpointing.savepoint-dir' = '" + filepath.Join(dir, "sp") + "'"} {
		exec(t, e, s)
	}
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	deadline := time.Now().Add(30 * time.Second)
	for len(visibleLines(t, out)) < 200 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	require.Len(t, visibleLines(t, out), 200)
	stopped := exec(t, e, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")

	for p := int32(0); p < 4; p++ {
		var vals []string
		for i := 50; i < 80; i++ {
			id := int(p)*1000 + i
			vals = append(vals, fmt.Sprintf(`{"id":%d}`, id))
			want = append(want, fmt.Sprint(id))
		}
		produce(t, c, topic, p, vals...)
	}
	again := core.NewTableEnvironment(core.InStreamingMode())
	tables(again, true)
	exec(t, again, "SET 'table.exec.resource.default-parallelism' = '3'")
	exec(t, again, "SET 'execution.savepoint.path' = '"+path+"'")
	exec(t, again, "INSERT INTO snk SELECT id FROM src")
	require.Equal(t, sorted(want), visibleLines(t, out))
}

// The exactly-once sink: records become visible to read_committed
// consumers only when their checkpoint completes; a job stopped with a
// savepoint and restored writes every record once.
func TestExactlyOnceSink(t *testing.T) {
	c := kafkaenv.Require(t)
	src, out := newTopic(t, c, 2), newTopic(t, c, 2)
	var want []string
	producer := func(from, to int) {
		for i := from; i < to; i++ {
			v := fmt.Sprintf(`{"id":%d}`, i)
			produce(t, c, src, int32(i%2), v)
			want = append(want, v)
		}
	}
	producer(0, 100)
	dir := t.TempDir()
	tables := func(e *core.TableEnvironment, outTopic string) {
		exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+src+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'scan.startup.mode' = 'earliest-offset')")
		exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+outTopic+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'tx-"+outTopic+"')")
		for _, s := range []string{"SET 'table.dml-sync' = 'false'",
			"SET 'execution.checkpointing.dir' = '" + filepath.Join(dir, "chk-"+outTopic) + "'",
			"SET 'execution.checkpointing.savepoint-dir' = '" + filepath.Join(dir, "sp") + "'"} {
			exec(t, e, s)
		}
	}
	waitFor := func(topic string, n int) []string {
		deadline := time.Now().Add(60 * time.Second)
		for {
			got := consume(t, c, topic, true)
			if len(got) >= n || time.Now().After(deadline) {
				return got
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// Without a completed checkpoint nothing is visible to read_committed.
	hidden := newTopic(t, c, 1)
	e0 := core.NewTableEnvironment(core.InStreamingMode())
	tables(e0, hidden)
	exec(t, e0, "SET 'execution.checkpointing.interval' = '1 h'")
	r0 := exec(t, e0, "INSERT INTO snk SELECT id FROM src")
	deadline := time.Now().Add(30 * time.Second)
	for len(consume(t, c, hidden, false)) < 100 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	require.Len(t, consume(t, c, hidden, false), 100, "read_uncommitted sees the open transaction")
	require.Empty(t, consume(t, c, hidden, true), "read_committed sees nothing before the checkpoint completes")
	exec(t, e0, "STOP JOB '"+r0.JobID()+"'")

	e := core.NewTableEnvironment(core.InStreamingMode())
	tables(e, out)
	exec(t, e, "SET 'execution.checkpointing.interval' = '200 ms'")
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	require.ElementsMatch(t, want, waitFor(out, 100))
	stopped := exec(t, e, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")

	producer(100, 150)
	again := core.NewTableEnvironment(core.InStreamingMode())
	tables(again, out)
	exec(t, again, "SET 'execution.checkpointing.interval' = '200 ms'")
	exec(t, again, "SET 'table.exec.resource.default-parallelism' = '2'")
	exec(t, again, "SET 'execution.savepoint.path' = '"+path+"'")
	res2 := exec(t, again, "INSERT INTO snk SELECT id FROM src")
	got := waitFor(out, 150)
	time.Sleep(500 * time.Millisecond)
	got = consume(t, c, out, true)
	exec(t, again, "STOP JOB '"+res2.JobID()+"'")
	require.Equal(t, sorted(want), sorted(got))
}

// A broker restarted while a job reads and writes through it: the job
// goes on (the client retries) and loses nothing (at-least-once sink).
func TestBrokerRestartMidRun(t *testing.T) {
	c := kafkaenv.Start(t, 1)
	in, out := newTopic(t, c, 2), newTopic(t, c, 2)
	var want []string
	write := func(from, to int) {
		for p := int32(0); p < 2; p++ {
			var vals []string
			for i := from; i < to; i++ {
				if int32(i%2) == p {
					vals = append(vals, fmt.Sprintf(`{"id":%d}`, i))
				}
			}
			produce(t, c, in, p, vals...)
		}
		for i := from; i < to; i++ {
			want = append(want, fmt.Sprintf(`{"id":%d}`, i))
		}
	}
	write(0, 1000)
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+in+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'scan.startup.mode' = 'earliest-offset')")
	exec(t, e, "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '"+out+"', 'format' = 'json', 'properties.bootstrap.servers' = '"+c.Bootstrap()+"', 'properties.request.timeout.ms' = '120000')")
	exec(t, e, "SET 'table.dml-sync' = 'false'")
	exec(t, e, "SET 'execution.checkpointing.interval' = '200 ms'")
	exec(t, e, "SET 'execution.checkpointing.dir' = '"+t.TempDir()+"'")
	res := exec(t, e, "INSERT INTO snk SELECT id FROM src")
	distinct := func() []string {
		seen := map[string]bool{}
		var out2 []string
		for _, v := range consume(t, c, out, false) {
			if !seen[v] {
				seen[v] = true
				out2 = append(out2, v)
			}
		}
		return sorted(out2)
	}
	waitAll := func() []string {
		deadline := time.Now().Add(90 * time.Second)
		for {
			got := distinct()
			if len(got) >= len(want) || time.Now().After(deadline) {
				return got
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	require.Equal(t, sorted(want), waitAll())
	require.NoError(t, c.StopNode(0))
	time.Sleep(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	require.NoError(t, c.RestartNode(ctx, 0))
	write(1000, 1500)
	require.Equal(t, sorted(want), waitAll())
	require.Equal(t, core.JobRunning, e.Jobs()[0].Status)
	exec(t, e, "STOP JOB '"+res.JobID()+"'")
}
