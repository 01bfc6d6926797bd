package kafka_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kafkaenv"
)

// METADATA columns: the sink writes 'headers' and 'timestamp' from
// persisted columns (declaration order of an INSERT without a column
// list), the source reads every readable key, VIRTUAL or not, cast to the
// declared type, in computed columns and with projection push-down.
func TestMetadataColumns(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 2)
	e := core.NewTableEnvironment(core.InBatchMode())
	exec(t, e, "SET 'table.local-time-zone' = 'UTC'")
	exec(t, e, fmt.Sprintf(`CREATE TABLE w (
		id BIGINT,
		hdrs MAP<STRING, BYTES> METADATA FROM 'headers',
		name STRING,
		ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
		off BIGINT METADATA FROM 'offset' VIRTUAL
	) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
		'sink.partitioner' = 'fixed')`, topic, c.Bootstrap()))
	exec(t, e, `INSERT INTO w VALUES
		(1, MAP['h1', CAST('v1' AS BYTES), 'h2', CAST('v2' AS BYTES)], 'a', TO_TIMESTAMP_LTZ(1700000000123, 3)),
		(2, CAST(NULL AS MAP<STRING, BYTES>), 'b', TO_TIMESTAMP_LTZ(1700000000456, 3))`)
	// the records as Kafka has them
	cl, err := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var got []string
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for len(got) < 2 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			s := fmt.Sprintf("%s p%d ts=%d", r.Value, r.Partition, r.Timestamp.UnixMilli())
			for _, h := range r.Headers {
				s += " " + h.Key + "=" + string(h.Value)
			}
			got = append(got, s)
		})
	}
	require.ElementsMatch(t, []string{
		`{"id":1,"name":"a"} p0 ts=1700000000123 h1=v1 h2=v2`,
		`{"id":2,"name":"b"} p0 ts=1700000000456`,
	}, got)

	exec(t, e, fmt.Sprintf(`CREATE TABLE r (
		id BIGINT,
		tp STRING METADATA FROM 'topic' VIRTUAL,
		p INT METADATA FROM 'partition' VIRTUAL,
		name STRING,
		`+"`offset`"+` BIGINT METADATA VIRTUAL,
		next_off AS `+"`offset`"+` + 1,
		ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
		ts_local TIMESTAMP(3) METADATA FROM 'timestamp',
		tt STRING METADATA FROM 'timestamp-type' VIRTUAL,
		headers MAP<STRING, BYTES> METADATA VIRTUAL,
		le INT METADATA FROM 'leader-epoch' VIRTUAL
	) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
		'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`, topic, c.Bootstrap()))
	require.Equal(t, []string{
		fmt.Sprintf("1,%s,0,a,0,1,1700000000123000,CreateTime,2,true", topic),
		fmt.Sprintf("2,%s,0,b,1,2,1700000000456000,CreateTime,0,true", topic),
	}, rowsOf(exec(t, e, "SELECT id, tp, p, name, `offset`, next_off, ts_local, tt, CARDINALITY(headers), le >= 0 FROM r")))
	// only metadata columns: the projection pushed into the scan holds
	// no physical column
	require.Equal(t, []string{"0,v1", "1,<nil>"}, rowsOf(exec(t, e, "SELECT `offset`, CAST(headers['h1'] AS STRING) FROM r")))
	require.Equal(t, []string{"1700000000123", "1700000000456"}, rowsOf(exec(t, e, "SELECT UNIX_TIMESTAMP(CAST(ts AS STRING)) * 1000 + EXTRACT(MILLISECOND FROM ts_local) FROM r")))
}

// The value format's metadata reads as 'value.<key>' (debezium-json's
// source.timestamp and source.table here).
func TestFormatMetadata(t *testing.T) {
	c := kafkaenv.Require(t)
	topic := newTopic(t, c, 1)
	produce(t, c, topic, 0,
		`{"before":null,"after":{"id":1,"name":"a"},"source":{"ts_ms":1700000000123,"db":"inventory","table":"users"},"op":"c","ts_ms":1700000000999}`)
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "SET 'table.local-time-zone' = 'UTC'")
	exec(t, e, fmt.Sprintf(`CREATE TABLE d (
		id BIGINT, name STRING,
		src_ts TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
		src_table STRING METADATA FROM 'value.source.table' VIRTUAL,
		off BIGINT METADATA FROM 'offset' VIRTUAL
	) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'debezium-json',
		'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`, topic, c.Bootstrap()))
	require.Equal(t, []string{"1,a,1700000000123000,users,0"}, rowsOf(exec(t, e, "SELECT id, name, src_ts, src_table, off FROM d")))
}

// Unknown keys, types that do not cast, persisted columns of keys the
// sink cannot write, and connectors without metadata fail with Flink's
// messages.
func TestMetadataErrors(t *testing.T) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	ctx := context.Background()
	with := "WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json')"
	exec(t, e, "CREATE TABLE bad_key (id BIGINT, o BIGINT METADATA FROM 'ofset') "+with)
	_, err := e.ExecuteSQL(ctx, "SELECT * FROM bad_key")
	require.EqualError(t, err, "Invalid metadata key 'ofset' in column 'o' of table 'default_catalog.default_database.bad_key'. "+
		"The DynamicTableSource class 'org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource' supports the following metadata keys for reading:\n"+
		"topic\npartition\nheaders\nleader-epoch\noffset\ntimestamp\ntimestamp-type")

	exec(t, e, "CREATE TABLE bad_type (id BIGINT, o DATE METADATA FROM 'offset') "+with)
	_, err = e.ExecuteSQL(ctx, "SELECT * FROM bad_type")
	require.ErrorContains(t, err, "Invalid data type for metadata column 'o' with metadata key 'offset' of table 'default_catalog.default_database.bad_type'.")

	exec(t, e, "CREATE TABLE ro (id BIGINT, `offset` BIGINT METADATA) "+with)
	_, err = e.ExecuteSQL(ctx, "INSERT INTO ro VALUES (1, 2)")
	require.EqualError(t, err, "Invalid metadata key 'offset' in column 'offset' of table 'default_catalog.default_database.ro'. "+
		"The DynamicTableSink class 'org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink' supports the following metadata keys for writing:\nheaders\ntimestamp")

	exec(t, e, "CREATE TABLE g (id BIGINT, m STRING METADATA VIRTUAL) WITH ('connector' = 'datagen')")
	_, err = e.ExecuteSQL(ctx, "SELECT * FROM g")
	require.ErrorContains(t, err, "declares metadata columns, but the underlying DynamicTableSource doesn't implement the SupportsReadingMetadata interface.")
	exec(t, e, "CREATE TABLE bh (id BIGINT, m STRING METADATA) WITH ('connector' = 'blackhole')")
	_, err = e.ExecuteSQL(ctx, "INSERT INTO bh VALUES (1, 'x')")
	require.ErrorContains(t, err, "declares persistable metadata columns, but the underlying DynamicTableSink doesn't implement the SupportsWritingMetadata interface.")
}

// EXPLAIN names the metadata a scan reads after its physical columns.
func TestMetadataExplain(t *testing.T) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	exec(t, e, "CREATE TABLE x (id BIGINT, name STRING, off BIGINT METADATA FROM 'offset' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') "+
		"WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json')")
	res := exec(t, e, "EXPLAIN SELECT id, off FROM x")
	require.Contains(t, fmt.Sprint(res.Rows()), "table=[[default_catalog, default_database, x, project=[id], metadata=[offset]]], fields=[id, off]")
}
