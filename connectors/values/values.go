// Package values is Flink's test connector 'values' for tables of inline
// rows, used by tests and examples.
//
// Source: a table reads the rows registered under its 'data-id' (see
// RegisterData; Flink's TestValuesTableFactory.registerData), or the rows
// of our own extension option 'data' — a JSON array of rows, each row a
// JSON array of the physical column values in order:
//
//	'data' = '[[1, "a", "2024-01-31"], [2, null, "2024-02-01 10:00:00.5"]]'
//
// Values are JSON numbers, strings, booleans and null; dates, times,
// timestamps ('yyyy-MM-dd HH:mm:ss[.f]' or with 'T'), decimals and
// base64 binary strings are written as strings; ARRAY as a JSON array,
// MAP as an object, ROW as an array or an object by field name. A table
// with neither option is empty. With 'failing-source' = 'true' an empty
// source fails as Flink's does.
//
// Sink: the rows written into a values table are collected in memory per
// table (Collected), as Flink's values sink does; INSERT OVERWRITE
// replaces them. The source does not read them back (as in Flink).
package values

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/connectors/format/json"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// OptionalOptions are the keys a values table accepts: Flink's test
// connector options that make sense here, plus 'data'.
func OptionalOptions() []string {
	return []string{"bounded", "changelog-mode", "data", "data-id", "disable-lookup",
		"failing-source", "runtime-source", "sink-insert-only", "sink.parallelism"}
}

// Row is one collected row with its kind.
type Row struct {
	Kind   changelog.RowKind
	Values []any
}

var store = struct {
	sync.Mutex
	next      int
	data      map[string][][]any
	collected map[string][]Row
}{data: map[string][][]any{}, collected: map[string][]Row{}}

// RegisterData stores rows (canonical values of the table's physical
// columns) and returns the id for a table's 'data-id' option.
func RegisterData(rows [][]any) string {
	store.Lock()
	defer store.Unlock()
	store.next++
	id := strconv.Itoa(store.next)
	store.data[id] = rows
	return id
}

// Collected returns the rows written so far into the values table with the
// given key (the table's identifier, ObjectIdentifier.String()).
func Collected(key string) []Row {
	store.Lock()
	defer store.Unlock()
	return append([]Row(nil), store.collected[key]...)
}

// ClearCollected forgets every collected row.
func ClearCollected() {
	store.Lock()
	defer store.Unlock()
	store.collected = map[string][]Row{}
}

// Rows returns the source rows of a table with these options: the 'data'
// option's rows, or those registered under 'data-id'.
func Rows(opts map[string]string, physical types.Schema) ([][]any, error) {
	if text, ok := opts["data"]; ok {
		return ParseData(text, physical)
	}
	if id, ok := opts["data-id"]; ok {
		store.Lock()
		rows, ok := store.data[id]
		store.Unlock()
		if ok {
			return rows, nil
		}
	}
	return nil, nil
}

// ParseData parses the 'data' option for a table of the given physical
// schema.
func ParseData(text string, physical types.Schema) ([][]any, error) {
	dec := stdjson.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("Invalid value for option 'data': expected a JSON array of rows: %w", err)
	}
	rows := make([][]any, len(raw))
	for i, r := range raw {
		xs, ok := r.([]any)
		if !ok || len(xs) != len(physical) {
			return nil, fmt.Errorf("Invalid value for option 'data': row %d must be a JSON array of %d values", i+1, len(physical))
		}
		row := make([]any, len(xs))
		for c, x := range xs {
			v, err := convert(x, physical[c].Type)
			if err != nil {
				return nil, fmt.Errorf("Invalid value for option 'data': row %d, column %s: %w", i+1, physical[c].Name, err)
			}
			row[c] = v
		}
		rows[i] = row
	}
	return rows, nil
}

// convert accepts ROW values as arrays too.
func convert(x any, t types.Type) (any, error) {
	if t.Kind == types.Row {
		if xs, ok := x.([]any); ok {
			if len(xs) != len(t.Fields) {
				return nil, fmt.Errorf("a ROW value needs %d fields", len(t.Fields))
			}
			out := make([]any, len(xs))
			for i, e := range xs {
				v, err := convert(e, t.Fields[i].Type)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	if t.Kind == types.Array {
		if xs, ok := x.([]any); ok {
			out := make([]any, len(xs))
			for i, e := range xs {
				v, err := convert(e, *t.Elem)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	return json.ConvertValue(x, t, textconv.Lenient, false)
}

// Source emits in-memory rows.
type Source struct {
	rows      [][]any
	out       types.Schema
	proj      []int
	batchSize int
	failing   bool
	start     int // first row to emit (a restored position, position.go)
	next      int // rows emitted (the checkpointed position)
}

// NewSource returns a source of rows (full physical rows) producing the
// projected columns (nil: all) in batches of batchSize rows.
func NewSource(rows [][]any, physical types.Schema, projection []int, batchSize int, failing bool) (*Source, error) {
	if projection == nil {
		projection = make([]int, len(physical))
		for i := range projection {
			projection[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = vectorized.DefaultBatchSize
	}
	s := &Source{rows: rows, proj: projection, batchSize: batchSize, failing: failing}
	for _, p := range projection {
		if p < 0 || p >= len(physical) {
			return nil, fmt.Errorf("values: projection index %d out of range", p)
		}
		s.out = append(s.out, physical[p])
	}
	if _, err := types.ArrowSchema(s.out); err != nil {
		return nil, err
	}
	return s, nil
}

// Open does nothing.
func (s *Source) Open(ctx context.Context) error { return nil }

// Run emits the rows.
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	if s.failing && len(s.rows) == 0 {
		// Flink's values source throws IllegalArgumentException here.
		return &function.EvalError{Class: "java.lang.IllegalArgumentException", Msg: "testing elements of values source shouldn't be empty."}
	}
	for start := s.start; start < len(s.rows); start += s.batchSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+s.batchSize, len(s.rows))
		part := make([][]any, end-start)
		for i, r := range s.rows[start:end] {
			row := make([]any, len(s.proj))
			for c, p := range s.proj {
				row[c] = r[p]
			}
			part[i] = row
		}
		rec, err := types.BuildRecord(memory.DefaultAllocator, s.out, part)
		if err != nil {
			return fmt.Errorf("values source: %w", err)
		}
		s.next = end
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
			return err
		}
	}
	return nil
}

// Close does nothing.
func (s *Source) Close() error { return nil }

var _ vectorized.Source = (*Source)(nil)

// Sink collects rows under a key.
type Sink struct {
	key       string
	schema    types.Schema
	overwrite bool
	rows      []Row
}

// NewSink returns a sink collecting rows of schema under key; with
// overwrite the rows replace those collected before.
func NewSink(key string, schema types.Schema, overwrite bool) *Sink {
	return &Sink{key: key, schema: schema, overwrite: overwrite}
}

// Open does nothing.
func (s *Sink) Open(ctx context.Context) error { return nil }

// Write buffers the rows of b.
func (s *Sink) Write(ctx context.Context, b vectorized.Batch) error {
	rows := types.RecordRows(b.Rec, s.schema)
	for i, r := range rows {
		s.rows = append(s.rows, Row{Kind: b.Kind(i), Values: r})
	}
	return nil
}

// Finish publishes the buffered rows.
func (s *Sink) Finish(ctx context.Context) error {
	store.Lock()
	defer store.Unlock()
	if s.overwrite {
		store.collected[s.key] = s.rows
	} else {
		store.collected[s.key] = append(store.collected[s.key], s.rows...)
	}
	s.rows = nil
	return nil
}

// Close drops unpublished rows.
func (s *Sink) Close() error {
	s.rows = nil
	return nil
}
