package json

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
)

// The changelog (CDC) formats built on the JSON codec: 'debezium-json',
// 'canal-json', 'maxwell-json' and 'ogg-json'. Each reads an envelope
// around the table's rows and gives Flink's row kinds: an insert +I, an
// update -U (the old row) and +U (the new one), a delete -D. Encoding
// writes one message per row: +I and +U as an insert, -U and -D as a
// delete (Flink cannot merge -U and +U into one update message either).

type cdcKind uint8

const (
	debezium cdcKind = iota
	canal
	maxwell
	ogg
)

// CDCFactory is one of the JSON changelog formats.
type CDCFactory struct{ kind cdcKind }

// The changelog format factories.
var (
	DebeziumFactory = CDCFactory{debezium}
	CanalFactory    = CDCFactory{canal}
	MaxwellFactory  = CDCFactory{maxwell}
	OggFactory      = CDCFactory{ogg}
)

var cdcNames = [...]string{"debezium-json", "canal-json", "maxwell-json", "ogg-json"}

// title is the format's name in Flink's messages ("Debezium JSON").
var cdcTitles = [...]string{"Debezium", "Canal", "Maxwell", "Ogg"}

// Identifier implements format.Factory.
func (f CDCFactory) Identifier() string { return cdcNames[f.kind] }

// Options implements format.Factory.
func (f CDCFactory) Options() []string {
	keys := []string{"ignore-parse-errors", "timestamp-format.standard", "map-null-key.mode", "map-null-key.literal",
		"encode.decimal-as-plain-number", "encode.ignore-null-fields"}
	switch f.kind {
	case debezium:
		keys = append(keys, "schema-include")
	case canal:
		keys = append(keys, "database.include", "table.include")
	}
	return keys
}

// Create implements format.Factory.
func (f CDCFactory) Create(opts map[string]string, prefix string) (format.Format, error) {
	c := &cdcFormat{kind: f.kind, prefix: prefix, opts: DefaultOptions()}
	var err error
	if c.opts.IgnoreParseErrors, err = config.BoolOption(opts, "ignore-parse-errors", false); err != nil {
		return nil, prefixed(err, prefix)
	}
	if err := parseCommon(opts, prefix, &c.opts); err != nil {
		return nil, err
	}
	if c.schemaInclude, err = config.BoolOption(opts, "schema-include", false); err != nil {
		return nil, prefixed(err, prefix)
	}
	for _, k := range []string{"database.include", "table.include"} {
		v, ok := opts[k]
		if !ok {
			continue
		}
		re, err := regexp.Compile("^(?:" + v + ")$")
		if err != nil {
			return nil, fmt.Errorf("Invalid regular expression '%s' for option '%s%s': %v", v, prefix, k, err)
		}
		if k == "database.include" {
			c.database = re
		} else {
			c.table = re
		}
	}
	return c, nil
}

type cdcFormat struct {
	kind          cdcKind
	prefix        string
	opts          Options
	schemaInclude bool
	database      *regexp.Regexp
	table         *regexp.Regexp
}

func (c *cdcFormat) DecodeMode() changelog.Mode { return changelog.All }
func (c *cdcFormat) EncodeMode() changelog.Mode { return changelog.All }

// metaDef is one readable metadata key: the JSON member it reads (in the
// root or, for debezium, the payload), the Flink type of that member, and
// the conversion of its value into the metadata's value.
type metaDef struct {
	key     string
	typ     types.Type
	payload bool
	field   string
	ftype   types.Type
	conv    func(v any) (any, error)
}

var stringMap = types.MapOf(types.StringT, types.StringT)

func identity(v any) (any, error) { return v, nil }

// millis converts epoch milliseconds (BIGINT) to a TIMESTAMP_LTZ(3) value.
func millis(scale int64) func(v any) (any, error) {
	return func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		return v.(int64) * scale * 1000, nil
	}
}

// property reads key of a MAP<STRING, STRING> value.
func property(key string, ts bool) func(v any) (any, error) {
	return func(v any) (any, error) {
		m, _ := v.(*types.MapValue)
		if m == nil {
			return nil, nil
		}
		for i, k := range m.Keys {
			if k == key {
				if m.Values[i] == nil || !ts {
					return m.Values[i], nil
				}
				n, err := strconv.ParseInt(m.Values[i].(string), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("For input string: %q", m.Values[i])
				}
				return n * 1000, nil
			}
		}
		return nil, nil
	}
}

func (c *cdcFormat) metaDefs() []metaDef {
	ltz := types.TimestampLTZOf(3)
	switch c.kind {
	case debezium:
		return []metaDef{
			{"schema", types.StringT, false, "schema", types.StringT, identity},
			{"ingestion-timestamp", ltz, true, "ts_ms", types.BigIntT, millis(1)},
			{"source.timestamp", ltz, true, "source", stringMap, property("ts_ms", true)},
			{"source.database", types.StringT, true, "source", stringMap, property("db", false)},
			{"source.schema", types.StringT, true, "source", stringMap, property("schema", false)},
			{"source.table", types.StringT, true, "source", stringMap, property("table", false)},
			{"source.properties", stringMap, true, "source", stringMap, identity},
		}
	case canal:
		return []metaDef{
			{"database", types.StringT, false, "database", types.StringT, identity},
			{"table", types.StringT, false, "table", types.StringT, identity},
			{"sql-type", types.MapOf(types.StringT, types.IntT), false, "sqlType", types.MapOf(types.StringT, types.IntT), identity},
			{"pk-names", types.ArrayOf(types.StringT), false, "pkNames", types.ArrayOf(types.StringT), identity},
			{"ingestion-timestamp", ltz, false, "ts", types.BigIntT, millis(1)},
			{"event-timestamp", ltz, false, "es", types.BigIntT, millis(1)},
		}
	case maxwell:
		return []metaDef{
			{"database", types.StringT, false, "database", types.StringT, identity},
			{"table", types.StringT, false, "table", types.StringT, identity},
			{"primary-key-columns", types.ArrayOf(types.StringT), false, "primary_key_columns", types.ArrayOf(types.StringT), identity},
			// Maxwell's ts is in seconds.
			{"ingestion-timestamp", ltz, false, "ts", types.BigIntT, millis(1000)},
		}
	}
	return nil
}

// Metadata implements format.Format.
func (c *cdcFormat) Metadata() []format.MetadataKey {
	var out []format.MetadataKey
	for _, m := range c.metaDefs() {
		out = append(out, format.MetadataKey{Key: m.key, Type: m.typ})
	}
	return out
}

// NewDecoder implements format.Format.
func (c *cdcFormat) NewDecoder(physical types.Schema, projection []int, metadata []string) (format.Decoder, error) {
	out, err := format.ProjectedSchema(physical, projection, metadata, c.Metadata())
	if err != nil {
		return nil, err
	}
	if _, err := types.ArrowSchema(out); err != nil {
		return nil, err
	}
	phys := out[:len(out)-len(metadata)]
	d := &cdcDecoder{f: c, schema: out, nphys: len(phys), row: newRowDecoder(phys, c.opts.style(), false)}
	defs := c.metaDefs()
	for _, k := range metadata {
		for _, m := range defs {
			if m.key == k {
				d.meta = append(d.meta, m)
			}
		}
	}
	d.metaRow = make([]*rowDecoder, len(d.meta))
	for i, m := range d.meta {
		d.metaRow[i] = newRowDecoder(types.Schema{{Name: m.field, Type: m.ftype}}, c.opts.style(), false)
	}
	d.metaVals = make([]any, len(d.meta))
	d.names = c.envelope()
	for _, m := range d.meta {
		d.addName(m.field, m.payload)
	}
	d.spans = make([]span, len(d.names))
	return d, nil
}

// envelopeName is a member of the envelope a decoder reads.
type envelopeName struct {
	name    string
	payload bool // inside debezium's "payload" (schema-include)
}

// envelope lists the members every message of the format needs.
func (c *cdcFormat) envelope() []envelopeName {
	inPayload := c.kind == debezium && c.schemaInclude
	switch c.kind {
	case debezium:
		return []envelopeName{{"before", inPayload}, {"after", inPayload}, {"op", inPayload}}
	case canal:
		return []envelopeName{{"data", false}, {"old", false}, {"type", false}, {"database", false}, {"table", false}}
	case maxwell:
		return []envelopeName{{"data", false}, {"old", false}, {"type", false}}
	}
	return []envelopeName{{"before", false}, {"after", false}, {"op_type", false}}
}

// Envelope members by position in cdcDecoder.names.
const (
	eBefore = 0 // debezium, ogg
	eAfter  = 1
	eOp     = 2
	eData   = 0 // canal, maxwell
	eOld    = 1
	eType   = 2
	eDB     = 3 // canal
	eTable  = 4
)

type cdcDecoder struct {
	f        *cdcFormat
	schema   types.Schema
	nphys    int
	row      *rowDecoder
	meta     []metaDef
	metaRow  []*rowDecoder
	metaVals []any
	names    []envelopeName
	spans    []span
	key      []byte
	// pending rows of the message being decoded
	cells [][]cell
	kinds []changelog.RowKind
	n     int
}

func (d *cdcDecoder) addName(name string, payload bool) {
	if d.f.kind == debezium && !d.f.schemaInclude {
		payload = false
	}
	for _, n := range d.names {
		if n.name == name && n.payload == payload {
			return
		}
	}
	d.names = append(d.names, envelopeName{name, payload})
}

func (d *cdcDecoder) index(name string, payload bool) int {
	if d.f.kind == debezium && !d.f.schemaInclude {
		payload = false
	}
	for i, n := range d.names {
		if n.name == name && n.payload == payload {
			return i
		}
	}
	return -1
}

// Schema implements format.Decoder.
func (d *cdcDecoder) Schema() types.Schema { return d.schema }

// Decode implements format.Decoder. An empty message (a tombstone) gives
// no row; so does a message of an event that carries no row (canal's DDL
// "CREATE", a database or table outside canal-json's include patterns).
func (d *cdcDecoder) Decode(msg []byte, out *format.Rows) error {
	if len(msg) == 0 {
		return nil
	}
	d.n = 0
	d.row.reset()
	if err := d.decode(msg); err != nil {
		if d.f.opts.IgnoreParseErrors {
			return nil
		}
		return &format.Error{Summary: fmt.Sprintf("Corrupt %s JSON message '%s'.", cdcTitles[d.f.kind], msg), Err: err}
	}
	for r := 0; r < d.n; r++ {
		nb := d.nphys
		if err := d.row.commit(d.cells[r], out.Builder); err != nil {
			return err
		}
		for i, v := range d.metaVals {
			if err := types.AppendValue(out.Builder(nb+i), v, d.schema[nb+i].Type); err != nil {
				return err
			}
		}
		out.Commit(d.kinds[r])
	}
	return nil
}

// next returns the cells of a new pending row of kind k.
func (d *cdcDecoder) next(k changelog.RowKind) []cell {
	if d.n == len(d.cells) {
		d.cells = append(d.cells, make([]cell, d.nphys))
		d.kinds = append(d.kinds, k)
	}
	d.kinds[d.n] = k
	d.n++
	return d.cells[d.n-1]
}

func (d *cdcDecoder) matchKey(key []byte, escaped bool, payload bool, val span) {
	name := key[1 : len(key)-1]
	if escaped {
		d.key = unescape(d.key[:0], key)
		name = d.key
	}
	for i, n := range d.names {
		if n.payload == payload && n.name == string(name) {
			d.spans[i] = val
		}
	}
}

func (d *cdcDecoder) decode(msg []byte) error {
	for i := range d.spans {
		d.spans[i] = absent
	}
	payload := absent
	err := topObject(msg, func(key []byte, escaped bool, val span) error {
		if d.f.kind == debezium && d.f.schemaInclude && string(key) == `"payload"` {
			payload = val
		}
		d.matchKey(key, escaped, false, val)
		return nil
	})
	if err != nil {
		return err
	}
	if d.f.kind == debezium && d.f.schemaInclude {
		if !payload.ok() || msg[payload.start] != '{' {
			return errors.New(`the "payload" field is missing or not an object ('debezium-json.schema-include' is true)`)
		}
		if err := eachMember(msg, payload, func(key []byte, escaped bool, val span) error {
			d.matchKey(key, escaped, true, val)
			return nil
		}); err != nil {
			return err
		}
	}
	if d.f.kind == canal {
		for _, c := range []struct {
			re  *regexp.Regexp
			idx int
		}{{d.f.database, eDB}, {d.f.table, eTable}} {
			if c.re == nil {
				continue
			}
			v, err := d.stringAt(msg, d.spans[c.idx])
			if err != nil {
				return err
			}
			if !c.re.MatchString(v) {
				return nil
			}
		}
	}
	if err := d.readMetadata(msg); err != nil {
		return err
	}
	switch d.f.kind {
	case debezium, ogg:
		return d.beforeAfter(msg)
	case canal:
		return d.canal(msg)
	}
	return d.maxwell(msg)
}

// stringAt returns the text of a string member (JSON null or absent: "").
func (d *cdcDecoder) stringAt(msg []byte, sp span) (string, error) {
	if !sp.ok() || msg[sp.start] == 'n' {
		return "", nil
	}
	raw := msg[sp.start:sp.end]
	if raw[0] != '"' {
		return string(raw), nil
	}
	return string(unescape(nil, raw)), nil
}

func (d *cdcDecoder) readMetadata(msg []byte) error {
	for i, m := range d.meta {
		sp := d.spans[d.index(m.field, m.payload)]
		var v any
		if sp.ok() {
			var c cell
			rd := d.metaRow[i]
			if err := rd.convertValue(msg[sp.start:sp.end], 0, &c); err != nil {
				return err
			}
			v = cellValue(c, rd.kinds[0])
		}
		var err error
		if d.metaVals[i], err = m.conv(v); err != nil {
			return err
		}
	}
	return nil
}

// cellValue is the canonical value of a converted cell.
func cellValue(c cell, k colKind) any {
	switch {
	case c.null:
		return nil
	case c.v != nil:
		return c.v
	}
	switch k {
	case kInt64:
		return c.i
	case kString:
		return string(c.s)
	}
	return nil
}

// rowAt parses the object at sp into a new pending row of kind k; a JSON
// null or absent member is an error naming what was null.
func (d *cdcDecoder) rowAt(msg []byte, sp span, k changelog.RowKind, what string) ([]cell, error) {
	if !sp.ok() || msg[sp.start] == 'n' {
		return nil, errors.New(what)
	}
	if msg[sp.start] != '{' {
		return nil, fmt.Errorf("cannot convert a JSON %s to a row", nodeName(msg[sp.start:sp.end]))
	}
	cells := d.next(k)
	return cells, d.row.parse(msg, sp, cells)
}

const replicaIdentity = "The \"before\" field of %s message is null, if you are using %s Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level."

// beforeAfter reads debezium's and ogg's before/after/op envelope.
func (d *cdcDecoder) beforeAfter(msg []byte) error {
	op, err := d.stringAt(msg, d.spans[eOp])
	if err != nil {
		return err
	}
	title := cdcTitles[d.f.kind]
	insert, update, del := "c", "u", "d"
	opName := "op"
	if d.f.kind == ogg {
		insert, update, del, opName = "I", "U", "D", "op_type"
	}
	switch {
	case op == insert || d.f.kind == debezium && op == "r":
		_, err = d.rowAt(msg, d.spans[eAfter], changelog.Insert, `the "after" field of an INSERT message is null`)
	case op == update:
		if _, err = d.rowAt(msg, d.spans[eBefore], changelog.UpdateBefore, fmt.Sprintf(replicaIdentity, "UPDATE", title)); err == nil {
			_, err = d.rowAt(msg, d.spans[eAfter], changelog.UpdateAfter, `the "after" field of an UPDATE message is null`)
		}
	case op == del:
		_, err = d.rowAt(msg, d.spans[eBefore], changelog.Delete, fmt.Sprintf(replicaIdentity, "DELETE", title))
	default:
		if !d.spans[eOp].ok() || msg[d.spans[eOp].start] == 'n' {
			return fmt.Errorf("the %q field is missing", opName)
		}
		return fmt.Errorf("Unknown \"%s\" value \"%s\". The %s JSON message is '%s'", opName, op, title, msg)
	}
	return err
}

// elements returns the spans of the elements of the array at sp (JSON
// null or absent: none).
func elements(msg []byte, sp span, dst []span) ([]span, error) {
	dst = dst[:0]
	if !sp.ok() || msg[sp.start] == 'n' {
		return dst, nil
	}
	if msg[sp.start] != '[' {
		return nil, fmt.Errorf("cannot convert a JSON %s to an array", nodeName(msg[sp.start:sp.end]))
	}
	s := scanner{b: msg[:sp.end], i: sp.start + 1}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		return dst, nil
	}
	for {
		v, err := s.value(1)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] == ']' {
			return dst, nil
		}
		s.i++
	}
}

// canal reads canal's {"data": [rows], "old": [changed fields], "type"}.
func (d *cdcDecoder) canal(msg []byte) error {
	typ, err := d.stringAt(msg, d.spans[eType])
	if err != nil {
		return err
	}
	data, err := elements(msg, d.spans[eData], nil)
	if err != nil {
		return err
	}
	switch typ {
	case "INSERT", "DELETE":
		k := changelog.Insert
		if typ == "DELETE" {
			k = changelog.Delete
		}
		for _, sp := range data {
			if _, err := d.rowAt(msg, sp, k, "a row of \"data\" is null"); err != nil {
				return err
			}
		}
		return nil
	case "UPDATE":
		old, err := elements(msg, d.spans[eOld], nil)
		if err != nil {
			return err
		}
		for i, sp := range data {
			var before []cell
			if i < len(old) {
				if before, err = d.rowAt(msg, old[i], changelog.UpdateBefore, "a row of \"old\" is null"); err != nil {
					return err
				}
			} else {
				return fmt.Errorf("the \"old\" field has %d rows for %d rows of \"data\"", len(old), len(data))
			}
			after, err := d.rowAt(msg, sp, changelog.UpdateAfter, "a row of \"data\" is null")
			if err != nil {
				return err
			}
			// Fields NULL or absent in "old" did not change.
			for f := range before {
				if before[f].null {
					before[f] = after[f]
				}
			}
		}
		return nil
	case "CREATE":
		// A DDL event: no row.
		return nil
	}
	if !d.spans[eType].ok() || msg[d.spans[eType].start] == 'n' {
		return errors.New(`the "type" field is missing`)
	}
	return fmt.Errorf("Unknown \"type\" value \"%s\". The Canal JSON message is '%s'", typ, msg)
}

// maxwell reads maxwell's {"data": row, "old": changed fields, "type"}.
func (d *cdcDecoder) maxwell(msg []byte) error {
	typ, err := d.stringAt(msg, d.spans[eType])
	if err != nil {
		return err
	}
	switch typ {
	case "insert":
		_, err = d.rowAt(msg, d.spans[eData], changelog.Insert, `the "data" field is null`)
	case "delete":
		_, err = d.rowAt(msg, d.spans[eData], changelog.Delete, `the "data" field is null`)
	case "update":
		before, err := d.rowAt(msg, d.spans[eOld], changelog.UpdateBefore, `the "old" field of an update is null`)
		if err != nil {
			return err
		}
		present := make([]bool, len(before))
		for f := range before {
			present[f] = d.row.spans[f].ok()
		}
		after, err := d.rowAt(msg, d.spans[eData], changelog.UpdateAfter, `the "data" field is null`)
		if err != nil {
			return err
		}
		// Fields absent from "old" did not change.
		for f := range before {
			if before[f].null && !present[f] {
				before[f] = after[f]
			}
		}
		return nil
	default:
		if !d.spans[eType].ok() || msg[d.spans[eType].start] == 'n' {
			return errors.New(`the "type" field is missing`)
		}
		return fmt.Errorf("Unknown \"type\" value \"%s\". The Maxwell JSON message is '%s'", typ, msg)
	}
	return err
}

// NewEncoder implements format.Format.
func (c *cdcFormat) NewEncoder(schema types.Schema) (format.Encoder, error) {
	if c.kind == debezium && c.schemaInclude {
		return nil, fmt.Errorf("Debezium JSON serialization doesn't support '%sschema-include' option been set to true.", c.prefix)
	}
	if _, err := types.ArrowSchema(schema); err != nil {
		return nil, err
	}
	return &cdcEncoder{f: c, schema: schema, w: &Writer{schema: schema, opts: c.opts}}, nil
}

type cdcEncoder struct {
	f      *cdcFormat
	schema types.Schema
	w      *Writer
	row    []any
}

// Encode implements format.Encoder: +I and +U are written as an insert,
// -U and -D as a delete, as Flink's serializers do.
func (e *cdcEncoder) Encode(dst []byte, rec arrow.RecordBatch, r int, k changelog.RowKind) ([]byte, error) {
	e.row = rowValues(e.row, rec, r, e.schema)
	insert := k == changelog.Insert || k == changelog.UpdateAfter
	var err error
	switch e.f.kind {
	case debezium, ogg:
		opName, op := `"op":`, `"c"`
		if e.f.kind == ogg {
			opName, op = `"op_type":`, `"I"`
			if !insert {
				op = `"D"`
			}
		} else if !insert {
			op = `"d"`
		}
		dst = append(dst, '{')
		if insert {
			if !e.f.opts.IgnoreNullFields {
				dst = append(dst, `"before":null,`...)
			}
			dst = append(dst, `"after":`...)
			if dst, err = e.w.appendObject(dst, e.row, e.schema); err != nil {
				return nil, err
			}
		} else {
			dst = append(dst, `"before":`...)
			if dst, err = e.w.appendObject(dst, e.row, e.schema); err != nil {
				return nil, err
			}
			if !e.f.opts.IgnoreNullFields {
				dst = append(dst, `,"after":null`...)
			}
		}
		dst = append(dst, ',')
		dst = append(dst, opName...)
		dst = append(dst, op...)
		return append(dst, '}'), nil
	case canal:
		dst = append(dst, `{"data":[`...)
		if dst, err = e.w.appendObject(dst, e.row, e.schema); err != nil {
			return nil, err
		}
		if insert {
			return append(dst, `],"type":"INSERT"}`...), nil
		}
		return append(dst, `],"type":"DELETE"}`...), nil
	}
	dst = append(dst, `{"data":`...)
	if dst, err = e.w.appendObject(dst, e.row, e.schema); err != nil {
		return nil, err
	}
	if insert {
		return append(dst, `,"type":"insert"}`...), nil
	}
	return append(dst, `,"type":"delete"}`...), nil
}

var (
	_ format.Factory = CDCFactory{}
	_ format.Format  = (*cdcFormat)(nil)
	_ format.Decoder = (*cdcDecoder)(nil)
	_ format.Encoder = (*cdcEncoder)(nil)
)
