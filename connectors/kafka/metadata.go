package kafka

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/connectors/format/formats"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// The metadata of a Kafka record that METADATA columns read (Flink's
// KafkaDynamicSource.ReadableMetadata) and write (KafkaDynamicSink.
// WritableMetadata), in Flink's order and with Flink's types.
const (
	MetaTopic         = "topic"
	MetaPartition     = "partition"
	MetaHeaders       = "headers"
	MetaLeaderEpoch   = "leader-epoch"
	MetaOffset        = "offset"
	MetaTimestamp     = "timestamp"
	MetaTimestampType = "timestamp-type"

	// valueMetaPrefix prefixes the value format's metadata keys
	// ('value.source.timestamp' of debezium-json).
	valueMetaPrefix = "value."

	sourceClass = "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource"
	sinkClass   = "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink"
)

func notNull(t types.Type) types.Type { return t.WithNullable(false) }

var (
	headersType   = notNull(types.MapOf(types.StringT, types.BytesT))
	timestampType = notNull(types.TimestampLTZOf(3))

	connectorMetadata = []catalog.MetadataKey{
		{Key: MetaTopic, Type: notNull(types.StringT)},
		{Key: MetaPartition, Type: notNull(types.IntT)},
		{Key: MetaHeaders, Type: headersType},
		{Key: MetaLeaderEpoch, Type: types.IntT},
		{Key: MetaOffset, Type: notNull(types.BigIntT)},
		{Key: MetaTimestamp, Type: timestampType},
		{Key: MetaTimestampType, Type: notNull(types.StringT)},
	}
)

// ReadableMetadata is what a scan of a kafka or upsert-kafka table with
// options opts reads for METADATA columns: the value format's metadata
// prefixed 'value.', then the record's (Flink's order). It lists the
// record's alone when the value format does not resolve (the error is
// the scan's, when the table is opened).
func ReadableMetadata(opts map[string]string) *catalog.MetadataKeys {
	m := &catalog.MetadataKeys{Class: sourceClass}
	key := KeyValueFormat
	if _, has := opts[KeyFormat]; has {
		key = KeyFormat
	}
	if f, err := formats.Builtin().Open(opts, key); err == nil {
		for _, k := range f.Metadata() {
			m.Keys = append(m.Keys, catalog.MetadataKey{Key: valueMetaPrefix + k.Key, Type: k.Type})
		}
	}
	m.Keys = append(m.Keys, connectorMetadata...)
	return m
}

// WritableMetadata is what the sink writes from persisted METADATA
// columns: the record's headers and timestamp.
func WritableMetadata() *catalog.MetadataKeys {
	return &catalog.MetadataKeys{Class: sinkClass, Keys: []catalog.MetadataKey{
		{Key: MetaHeaders, Type: headersType},
		{Key: MetaTimestamp, Type: timestampType},
	}}
}

// metaReader appends the metadata of records to the columns of the
// connector's metadata keys.
type metaReader struct {
	keys  []string
	rows  []array.Builder
	types []types.Type
}

func newMetaReader(keys []string) (*metaReader, error) {
	m := &metaReader{keys: keys}
	for _, k := range keys {
		t, ok := (&catalog.MetadataKeys{Keys: connectorMetadata}).Lookup(k)
		if !ok {
			return nil, fmt.Errorf("kafka: unknown metadata key '%s'", k)
		}
		at, err := types.ArrowType(t)
		if err != nil {
			return nil, err
		}
		m.types = append(m.types, t)
		m.rows = append(m.rows, array.NewBuilder(vectorized.Mem, at))
	}
	return m, nil
}

// appendN appends the metadata of r n times (a message decoded into n
// rows).
func (m *metaReader) appendN(r *kgo.Record, n int) error {
	for i, k := range m.keys {
		b := m.rows[i]
		for j := 0; j < n; j++ {
			switch k {
			case MetaTopic:
				b.(*array.StringBuilder).Append(r.Topic)
			case MetaPartition:
				b.(*array.Int32Builder).Append(r.Partition)
			case MetaOffset:
				b.(*array.Int64Builder).Append(r.Offset)
			case MetaLeaderEpoch:
				if r.LeaderEpoch < 0 {
					b.AppendNull()
				} else {
					b.(*array.Int32Builder).Append(r.LeaderEpoch)
				}
			case MetaTimestamp:
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(r.Timestamp.UnixMilli() * 1000))
			case MetaTimestampType:
				b.(*array.StringBuilder).Append(timestampTypeOf(r))
			case MetaHeaders:
				mv := &types.MapValue{}
				for _, h := range r.Headers {
					mv.Keys = append(mv.Keys, h.Key)
					mv.Values = append(mv.Values, h.Value)
				}
				if err := types.AppendValue(b, mv, m.types[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// columns returns the columns appended so far and empties the builders.
func (m *metaReader) columns() []arrow.Array {
	out := make([]arrow.Array, len(m.rows))
	for i, b := range m.rows {
		out[i] = b.NewArray()
	}
	return out
}

func (m *metaReader) release() {
	for _, b := range m.rows {
		b.Release()
	}
	m.rows = nil
}

// timestampTypeOf names the record's timestamp type as Kafka's
// TimestampType does.
func timestampTypeOf(r *kgo.Record) string {
	if r.Attrs.TimestampType() == 1 {
		return "LogAppendTime"
	}
	if r.Attrs.TimestampType() < 0 {
		return "NoTimestampType"
	}
	return "CreateTime"
}
