// Package format holds Flink's table formats for one message at a time —
// the Go form of Flink's DeserializationSchema and SerializationSchema
// behind 'format' = '…' (and 'key.format' / 'value.format'): a registry by
// Flink's identifier ("json", "csv", "raw", "avro", "debezium-json",
// "canal-json", "maxwell-json", "ogg-json"), each with its option keys
// under Flink's prefix ('json.ignore-parse-errors', 'csv.field-delimiter',
// …), a Decoder that appends decoded messages to Arrow builders with their
// row kind, and an Encoder from a batch row to bytes.
//
// A connector that reads messages (Kafka, or the filesystem connector for
// the line-oriented formats) resolves the format once per table:
//
//	f, err := formats.Builtin().Open(tableOptions, "value.format")
//	dec, err := f.NewDecoder(physical, projection, nil)
//	rows := format.NewRows(dec.Schema())
//	for each message: if err := dec.Decode(msg, rows); err != nil { … }
//	if rows.Len() >= batchSize { batch := rows.Batch() … }
//
// and reports a decoding error with where it happened (topic, partition
// and offset, or file and line): the error already says what failed.
package format

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Factory is one format identifier (Flink's DeserializationFormatFactory
// and SerializationFormatFactory).
type Factory interface {
	// Identifier is the value of the 'format' option, e.g. "json".
	Identifier() string
	// Options lists the format's option keys without the prefix
	// ("ignore-parse-errors" is 'json.ignore-parse-errors' under
	// 'format' = 'json' and 'value.json.ignore-parse-errors' under
	// 'value.format' = 'json').
	Options() []string
	// Create checks the format's options (keys without the prefix; only
	// keys from Options are passed) and returns the configured format.
	// Errors use Flink's wording with the full option key (prefix is
	// "json." or "value.json.").
	Create(opts map[string]string, prefix string) (Format, error)
}

// Format is a configured format of one table: it makes decoders and
// encoders for the table's schema. It is safe for concurrent use; the
// decoders and encoders it returns are not.
type Format interface {
	// DecodeMode is the changelog mode of decoded rows (Flink's
	// DecodingFormat#getChangelogMode): insert-only for the plain formats,
	// changelog.All for debezium-json and the other CDC formats.
	DecodeMode() changelog.Mode
	// EncodeMode is the set of row kinds the encoder accepts (Flink's
	// EncodingFormat#getChangelogMode).
	EncodeMode() changelog.Mode
	// NewDecoder returns a decoder of messages holding rows of physical
	// schema physical that produces the columns in projection (indexes
	// into physical; nil: all, in order) followed by one column per
	// requested metadata key (keys from Metadata, without a connector's
	// "value." prefix).
	NewDecoder(physical types.Schema, projection []int, metadata []string) (Decoder, error)
	// NewEncoder returns an encoder of rows of schema.
	NewEncoder(schema types.Schema) (Encoder, error)
	// Metadata lists the metadata the format can read from a message
	// (Flink's DecodingFormat#listReadableMetadata), in Flink's order.
	Metadata() []MetadataKey
}

// MetadataKey is a piece of metadata a format reads from a message
// (debezium-json's "source.timestamp", …) and the type it has.
type MetadataKey struct {
	Key  string
	Type types.Type
}

// Decoder decodes messages into rows (Flink's DeserializationSchema with
// a Collector). Not safe for concurrent use.
type Decoder interface {
	// Schema is the schema of the produced rows: the projected physical
	// columns, then the metadata columns.
	Schema() types.Schema
	// Decode appends the rows of one message (none, one, or two for a CDC
	// update) with their row kinds to out, whose schema is Schema(). On
	// an error nothing is appended. A message that does not parse is an
	// error unless the format ignores parse errors (it appends nothing
	// then). The error says what failed (Flink's message with the
	// message text); the caller adds where. msg is not retained.
	Decode(msg []byte, out *Rows) error
}

// Encoder encodes rows into messages (Flink's SerializationSchema). Not
// safe for concurrent use.
type Encoder interface {
	// Encode appends the message of row r of rec (whose schema is the
	// encoder's), of kind k, to dst and returns it. Plain formats ignore
	// k (the connector checks EncodeMode); CDC formats encode it as the
	// operation.
	Encode(dst []byte, rec arrow.RecordBatch, r int, k changelog.RowKind) ([]byte, error)
}

// Rows accumulates decoded rows in Arrow builders until Batch takes them.
// Decoders append one value per column per row through Builder (typed
// appends, no per-value allocation) and call Commit per row.
type Rows struct {
	schema   types.Schema
	arrow    *arrow.Schema
	builders []array.Builder
	kinds    []changelog.RowKind
	anyKind  bool
}

// NewRows returns an empty set of rows of schema.
func NewRows(schema types.Schema) (*Rows, error) {
	as, err := types.ArrowSchema(schema)
	if err != nil {
		return nil, err
	}
	r := &Rows{schema: schema, arrow: as}
	for _, f := range as.Fields() {
		r.builders = append(r.builders, array.NewBuilder(memory.DefaultAllocator, f.Type))
	}
	return r, nil
}

// Schema is the schema of the rows.
func (r *Rows) Schema() types.Schema { return r.schema }

// Builder is the builder of column i; a decoder appends exactly one value
// to every column per row, then calls Commit.
func (r *Rows) Builder(i int) array.Builder { return r.builders[i] }

// Commit records the row kind of the row just appended.
func (r *Rows) Commit(k changelog.RowKind) {
	r.kinds = append(r.kinds, k)
	if k != changelog.Insert {
		r.anyKind = true
	}
}

// Len is the number of rows held.
func (r *Rows) Len() int { return len(r.kinds) }

// Batch returns the rows held as a batch (row kinds nil when all are +I)
// and empties r. The caller owns the batch.
func (r *Rows) Batch() vectorized.Batch {
	arrs := make([]arrow.Array, len(r.builders))
	for i, b := range r.builders {
		arrs[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(r.arrow, arrs, int64(len(r.kinds)))
	for _, a := range arrs {
		a.Release()
	}
	b := vectorized.Batch{Rec: rec}
	if r.anyKind {
		b.Kinds = append([]changelog.RowKind(nil), r.kinds...)
	}
	r.kinds = r.kinds[:0]
	r.anyKind = false
	return b
}

// Release frees the builders.
func (r *Rows) Release() {
	for _, b := range r.builders {
		b.Release()
	}
	r.builders = nil
}

// Error is a message that does not decode: Summary is Flink's message
// ("Failed to deserialize JSON '…'.", "Corrupt Debezium JSON message
// '…'."), Err the cause.
type Error struct {
	Summary string
	Err     error
}

// Error reads "<summary> <cause>".
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Summary
	}
	return e.Summary + " " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Registry maps format identifiers to factories.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a factory, replacing one with the same identifier.
func (r *Registry) Register(f Factory) { r.factories[f.Identifier()] = f }

// Lookup returns the factory of identifier id, or Flink's error.
func (r *Registry) Lookup(id string) (Factory, error) {
	f, ok := r.factories[id]
	if !ok {
		return nil, fmt.Errorf("Could not find any format factory for identifier '%s' in the classpath.", id)
	}
	return f, nil
}

// Identifiers lists the registered identifiers, sorted.
func (r *Registry) Identifiers() []string {
	out := make([]string, 0, len(r.factories))
	for id := range r.factories {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Prefix is the prefix of the options of the format named by formatKey
// ("format" → "json.", "value.format" → "value.json.") as Flink's
// FactoryUtil forms it.
func Prefix(formatKey, identifier string) string {
	return strings.TrimSuffix(formatKey, "format") + identifier + "."
}

// OptionKeys returns the full table option keys of the format named by
// tableOptions[formatKey] ("json.ignore-parse-errors", …), for a
// connector's list of supported options; nil when the format is unset or
// unknown.
func (r *Registry) OptionKeys(tableOptions map[string]string, formatKey string) []string {
	id, ok := tableOptions[formatKey]
	if !ok {
		return nil
	}
	f, ok := r.factories[id]
	if !ok {
		return nil
	}
	prefix := Prefix(formatKey, id)
	var out []string
	for _, k := range f.Options() {
		out = append(out, prefix+k)
	}
	return out
}

// Open resolves the format named by tableOptions[formatKey]: its factory
// and its options (the keys under its prefix). Keys under the prefix that
// the format does not know are left for the connector's "Unsupported
// options" check (OptionKeys lists the known ones).
func (r *Registry) Open(tableOptions map[string]string, formatKey string) (Format, error) {
	id, ok := tableOptions[formatKey]
	if !ok {
		return nil, fmt.Errorf("Could not find required scan format '%s'.", formatKey)
	}
	f, err := r.Lookup(id)
	if err != nil {
		return nil, err
	}
	prefix := Prefix(formatKey, id)
	known := map[string]bool{}
	for _, k := range f.Options() {
		known[k] = true
	}
	opts := map[string]string{}
	for k, v := range tableOptions {
		if rest, ok := strings.CutPrefix(k, prefix); ok && known[rest] {
			opts[rest] = v
		}
	}
	return f.Create(opts, prefix)
}

// ErrNotSupported marks a capability a format does not have.
var ErrNotSupported = errors.New("not supported yet")

// ProjectedSchema returns the columns of physical in projection (nil: all)
// followed by the metadata columns of keys (their types from avail), with
// Flink's error for an unknown metadata key.
func ProjectedSchema(physical types.Schema, projection []int, keys []string, avail []MetadataKey) (types.Schema, error) {
	var out types.Schema
	if projection == nil {
		out = append(out, physical...)
	} else {
		for _, p := range projection {
			if p < 0 || p >= len(physical) {
				return nil, fmt.Errorf("projection index %d out of range", p)
			}
			out = append(out, physical[p])
		}
	}
	for _, k := range keys {
		found := false
		for _, m := range avail {
			if m.Key == k {
				out = append(out, types.Field{Name: k, Type: m.Type})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: metadata key '%s' of this format", ErrNotSupported, k)
		}
	}
	return out, nil
}
