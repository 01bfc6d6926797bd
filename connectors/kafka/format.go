package kafka

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/formats"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// Format is a key or value format of a table (connectors/format) with
// the fields it holds.
type Format struct {
	Name   string
	Format format.Format
	// Fields are the columns of the message: for the key the key fields
	// without key.fields-prefix.
	Fields types.Schema
}

// formatOptionKeys lists the full option keys of the format named by
// opts[formatKey].
func formatOptionKeys(opts map[string]string, formatKey string) []string {
	return formats.Builtin().OptionKeys(opts, formatKey)
}

// FormatModes returns the changelog modes the value format of a kafka
// table's options decodes and encodes (ok false when it does not open).
func FormatModes(opts map[string]string) (decode, encode changelog.Mode, ok bool) {
	key := KeyValueFormat
	if _, has := opts[KeyFormat]; has {
		key = KeyFormat
	}
	f, err := formats.Builtin().Open(opts, key)
	if err != nil {
		return 0, 0, false
	}
	return f.DecodeMode(), f.EncodeMode(), true
}

// openFormat resolves the format named by opts[formatKey] for fields.
func openFormat(opts map[string]string, formatKey string, fields types.Schema) (*Format, error) {
	f, err := formats.Builtin().Open(opts, formatKey)
	if err != nil {
		return nil, err
	}
	return &Format{Name: opts[formatKey], Format: f, Fields: fields}, nil
}

// project returns the columns cols of rec as a record of schema fields.
func project(rec arrow.RecordBatch, cols []int, fields types.Schema) (arrow.RecordBatch, error) {
	as, err := types.ArrowSchema(fields)
	if err != nil {
		return nil, err
	}
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = rec.Column(c)
	}
	return array.NewRecordBatch(as, arrs, rec.NumRows()), nil
}

// encodeAll encodes every row of rec (whose schema is the format's
// fields) into one message each.
func encodeAll(enc format.Encoder, rec arrow.RecordBatch, kind func(int) changelog.RowKind) ([][]byte, error) {
	n := int(rec.NumRows())
	out := make([][]byte, n)
	var buf []byte
	for i := 0; i < n; i++ {
		start := len(buf)
		var err error
		buf, err = enc.Encode(buf, rec, i, kind(i))
		if err != nil {
			return nil, fmt.Errorf("Could not serialize row: %w", err)
		}
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out, nil
}
