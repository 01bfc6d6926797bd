package json

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
)

// optionKeys are the 'json' format's keys (Flink's JsonFormatOptions).
var optionKeys = []string{
	"decode.json-parser.enabled", "encode.decimal-as-plain-number", "encode.ignore-null-fields",
	"fail-on-missing-field", "ignore-parse-errors", "map-null-key.literal", "map-null-key.mode",
	"timestamp-format.standard",
}

// OptionKeys are the 'json' format's keys without the "json." prefix.
func OptionKeys() []string { return append([]string(nil), optionKeys...) }

// ParseOptions reads the json options opts (keys without the prefix) as
// Flink's JsonFormatFactory validates them.
func ParseOptions(opts map[string]string, prefix string) (Options, error) {
	o := DefaultOptions()
	var err error
	if o.FailOnMissingField, err = config.BoolOption(opts, "fail-on-missing-field", false); err != nil {
		return o, prefixed(err, prefix)
	}
	if o.IgnoreParseErrors, err = config.BoolOption(opts, "ignore-parse-errors", false); err != nil {
		return o, prefixed(err, prefix)
	}
	if o.FailOnMissingField && o.IgnoreParseErrors {
		return o, errors.New("fail-on-missing-field and ignore-parse-errors shouldn't both be true.")
	}
	if err := parseCommon(opts, prefix, &o); err != nil {
		return o, err
	}
	if _, err := config.BoolOption(opts, "decode.json-parser.enabled", true); err != nil {
		return o, prefixed(err, prefix)
	}
	return o, nil
}

// parseCommon reads the keys the JSON-based formats share:
// timestamp-format.standard, map-null-key.*, encode.*.
func parseCommon(opts map[string]string, prefix string, o *Options) error {
	if v, ok := opts["timestamp-format.standard"]; ok {
		switch strings.ToUpper(v) {
		case "SQL":
		case "ISO-8601":
			o.ISO8601 = true
		default:
			return fmt.Errorf("Unsupported value '%s' for timestamp-format.standard. Supported values are [SQL, ISO-8601].", v)
		}
	}
	if v, ok := opts["map-null-key.mode"]; ok {
		switch strings.ToUpper(v) {
		case "FAIL", "DROP", "LITERAL":
			o.MapNullKeyMode = strings.ToUpper(v)
		default:
			return fmt.Errorf("Unsupported value '%s' for option map-null-key.mode. Supported values are [LITERAL, FAIL, DROP].", v)
		}
	}
	if v, ok := opts["map-null-key.literal"]; ok {
		o.MapNullKeyLiteral = v
	}
	var err error
	if o.DecimalAsPlainNumber, err = config.BoolOption(opts, "encode.decimal-as-plain-number", false); err != nil {
		return prefixed(err, prefix)
	}
	if o.IgnoreNullFields, err = config.BoolOption(opts, "encode.ignore-null-fields", false); err != nil {
		return prefixed(err, prefix)
	}
	return nil
}

// prefixed names the full option key in config.BoolOption's message
// ("Could not parse value 'x' for key 'json.ignore-parse-errors'.").
func prefixed(err error, prefix string) error {
	msg := err.Error()
	if i := strings.Index(msg, "for key '"); i >= 0 {
		return errors.New(msg[:i+9] + prefix + msg[i+9:])
	}
	return err
}

// Factory is the 'json' format.
type Factory struct{}

// Identifier implements format.Factory.
func (Factory) Identifier() string { return "json" }

// Options implements format.Factory.
func (Factory) Options() []string { return OptionKeys() }

// Create implements format.Factory.
func (Factory) Create(opts map[string]string, prefix string) (format.Format, error) {
	o, err := ParseOptions(opts, prefix)
	if err != nil {
		return nil, err
	}
	return jsonFormat{o}, nil
}

type jsonFormat struct{ opts Options }

func (jsonFormat) DecodeMode() changelog.Mode     { return changelog.InsertOnly }
func (jsonFormat) EncodeMode() changelog.Mode     { return changelog.InsertOnly }
func (jsonFormat) Metadata() []format.MetadataKey { return nil }

func (f jsonFormat) NewDecoder(physical types.Schema, projection []int, metadata []string) (format.Decoder, error) {
	if len(metadata) > 0 {
		_, err := format.ProjectedSchema(physical, projection, metadata, nil)
		return nil, err
	}
	return NewDecoder(physical, projection, f.opts)
}

func (f jsonFormat) NewEncoder(schema types.Schema) (format.Encoder, error) {
	return &Encoder{schema: schema, w: &Writer{schema: schema, opts: f.opts}}, nil
}

// Decoder decodes 'json' messages: one JSON object per message.
type Decoder struct {
	schema types.Schema
	opts   Options
	row    *rowDecoder
	cells  []cell
}

// NewDecoder returns a decoder of the columns in projection (nil: all)
// of physical.
func NewDecoder(physical types.Schema, projection []int, opts Options) (*Decoder, error) {
	out, err := format.ProjectedSchema(physical, projection, nil, nil)
	if err != nil {
		return nil, err
	}
	if _, err := types.ArrowSchema(out); err != nil {
		return nil, err
	}
	return &Decoder{schema: out, opts: opts, row: newRowDecoder(out, opts.style(), opts.FailOnMissingField), cells: make([]cell, len(out))}, nil
}

func (o Options) style() textconv.TimestampStyle {
	if o.ISO8601 {
		return textconv.ISO
	}
	return textconv.SQLMinutes
}

// Schema implements format.Decoder.
func (d *Decoder) Schema() types.Schema { return d.schema }

// Decode implements format.Decoder: an empty message (a Kafka tombstone)
// gives no row, as Flink's null message.
func (d *Decoder) Decode(msg []byte, out *format.Rows) error {
	if len(msg) == 0 {
		return nil
	}
	d.row.reset()
	for i := range d.row.spans {
		d.row.spans[i] = absent
	}
	err := topObject(msg, d.row.visit)
	if err == nil {
		err = d.row.convert(msg, d.cells)
	}
	if err != nil {
		if d.opts.IgnoreParseErrors {
			return nil
		}
		return &format.Error{Summary: fmt.Sprintf("Failed to deserialize JSON '%s'.", msg), Err: err}
	}
	if err := d.row.commit(d.cells, out.Builder); err != nil {
		return err
	}
	out.Commit(changelog.Insert)
	return nil
}

// Encoder encodes rows as 'json' messages.
type Encoder struct {
	schema types.Schema
	w      *Writer
	row    []any
}

// Encode implements format.Encoder.
func (e *Encoder) Encode(dst []byte, rec arrow.RecordBatch, r int, _ changelog.RowKind) ([]byte, error) {
	e.row = rowValues(e.row, rec, r, e.schema)
	return e.w.appendObject(dst, e.row, e.schema)
}

func rowValues(dst []any, rec arrow.RecordBatch, r int, schema types.Schema) []any {
	dst = dst[:0]
	for c := range schema {
		dst = append(dst, types.GetValue(rec.Column(c), r, schema[c].Type))
	}
	return dst
}

var (
	_ format.Factory = Factory{}
	_ format.Decoder = (*Decoder)(nil)
	_ format.Encoder = (*Encoder)(nil)
)
