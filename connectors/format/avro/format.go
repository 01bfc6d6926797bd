package avro

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	havro "github.com/hamba/avro/v2"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// Factory is the 'avro' format for messages (Flink's
// AvroRowDataDeserializationSchema / SerializationSchema): each message is
// one record in Avro's binary encoding, without a container or schema
// header, under the schema AvroSchemaConverter derives from the table's
// physical columns (Schema).
type Factory struct{}

// Identifier implements format.Factory.
func (Factory) Identifier() string { return "avro" }

// Options implements format.Factory.
func (Factory) Options() []string { return []string{"codec", "encoding", "timestamp_mapping.legacy"} }

// Create implements format.Factory.
func (Factory) Create(opts map[string]string, prefix string) (format.Format, error) {
	full := map[string]string{}
	for k, v := range opts {
		if k != "encoding" {
			full["avro."+k] = v
		}
	}
	o, err := ParseOptions(full)
	if err != nil {
		return nil, err
	}
	if v, ok := opts["encoding"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "binary":
		case "json":
			return nil, fmt.Errorf("not supported yet: '%sencoding' = 'json'", prefix)
		default:
			return nil, fmt.Errorf("Could not parse value '%s' for key '%sencoding'.", v, prefix)
		}
	}
	return avroFormat{o}, nil
}

type avroFormat struct{ opts Options }

func (avroFormat) DecodeMode() changelog.Mode     { return changelog.InsertOnly }
func (avroFormat) EncodeMode() changelog.Mode     { return changelog.InsertOnly }
func (avroFormat) Metadata() []format.MetadataKey { return nil }

func (f avroFormat) schema(physical types.Schema) (*havro.RecordSchema, error) {
	if err := CheckTypes(physical, f.opts); err != nil {
		return nil, err
	}
	js, err := Schema(physical, f.opts)
	if err != nil {
		return nil, err
	}
	s, err := havro.Parse(js)
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	return s.(*havro.RecordSchema), nil
}

func (f avroFormat) NewDecoder(physical types.Schema, projection []int, metadata []string) (format.Decoder, error) {
	out, err := format.ProjectedSchema(physical, projection, metadata, nil)
	if err != nil {
		return nil, err
	}
	s, err := f.schema(physical)
	if err != nil {
		return nil, err
	}
	if projection == nil {
		for i := range physical {
			projection = append(projection, i)
		}
	}
	return &MessageDecoder{schema: s, physical: physical, proj: projection, out: out, vals: make([]any, len(out))}, nil
}

func (f avroFormat) NewEncoder(schema types.Schema) (format.Encoder, error) {
	s, err := f.schema(schema)
	if err != nil {
		return nil, err
	}
	return &MessageEncoder{schema: s, types: schema}, nil
}

// MessageDecoder decodes Avro binary records.
type MessageDecoder struct {
	schema   *havro.RecordSchema
	physical types.Schema
	proj     []int
	out      types.Schema
	vals     []any
}

// Schema implements format.Decoder.
func (d *MessageDecoder) Schema() types.Schema { return d.out }

// Decode implements format.Decoder; an empty message gives no row.
func (d *MessageDecoder) Decode(msg []byte, out *format.Rows) error {
	if len(msg) == 0 {
		return nil
	}
	var m map[string]any
	if err := havro.Unmarshal(d.schema, msg, &m); err != nil {
		return &format.Error{Summary: "Failed to deserialize Avro record.", Err: err}
	}
	fields := d.schema.Fields()
	for i, p := range d.proj {
		v, err := fromAvro(m[fields[p].Name()], d.physical[p].Type, fields[p].Type())
		if err != nil {
			return &format.Error{Summary: "Failed to deserialize Avro record.", Err: fmt.Errorf("column %s: %w", d.physical[p].Name, err)}
		}
		d.vals[i] = v
	}
	for i, v := range d.vals {
		if err := types.AppendValue(out.Builder(i), v, d.out[i].Type); err != nil {
			return err
		}
	}
	out.Commit(changelog.Insert)
	return nil
}

// MessageEncoder encodes rows as Avro binary records.
type MessageEncoder struct {
	schema *havro.RecordSchema
	types  types.Schema
	m      map[string]any
}

// Encode implements format.Encoder.
func (e *MessageEncoder) Encode(dst []byte, rec arrow.RecordBatch, r int, _ changelog.RowKind) ([]byte, error) {
	if e.m == nil {
		e.m = make(map[string]any, len(e.types))
	}
	for i, f := range e.schema.Fields() {
		v, err := toAvro(types.GetValue(rec.Column(i), r, e.types[i].Type), e.types[i].Type, f.Type())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", e.types[i].Name, err)
		}
		e.m[f.Name()] = v
	}
	b, err := havro.Marshal(e.schema, e.m)
	if err != nil {
		return nil, fmt.Errorf("Failed to serialize row. %w", err)
	}
	return append(dst, b...), nil
}

var (
	_ format.Factory = Factory{}
	_ format.Decoder = (*MessageDecoder)(nil)
	_ format.Encoder = (*MessageEncoder)(nil)
)
