package ops

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Checkpoint state of the streaming operators (see vectorized.Stateful).
//
// Keyed state is written as parts whose first column is "key_group"
// (int32): the key group of the row's key, computed with
// vectorized.HashColumns over the operator's key columns of the row as it
// arrived (join keys, PARTITION BY keys), so that it equals the key group
// the Exchange in front of the operator routes the row by. An operator
// without keys runs as a singleton: HashColumns over no columns is a
// constant, so all its rows fall into one key group. Non-keyed state
// (watermarks) goes into parts without "key_group"; when a snapshot taken
// at one parallelism is restored at another, every instance reads the
// rows of all former instances and keeps the minimum, which never
// declares a watermark some input has not reached.

// keyGroupField is the first field of every keyed part.
var keyGroupField = arrow.Field{Name: "key_group", Type: arrow.PrimitiveTypes.Int32}

// stateRowsPerBatch bounds the rows of one record batch of a snapshot.
const stateRowsPerBatch = vectorized.DefaultBatchSize

// keyGroupsOf returns the key group of every row of rec, over columns
// keys.
func keyGroupsOf(rec arrow.RecordBatch, keys []int) []int32 {
	n := int(rec.NumRows())
	hashes := make([]uint64, n)
	vectorized.HashColumns(rec, keys, hashes)
	kgs := make([]int32, n)
	for i, h := range hashes {
		kgs[i] = int32(vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism))
	}
	return kgs
}

// int32Array and int64Array build the plain columns of state records.
func int32Array(vs []int32) arrow.Array {
	b := array.NewInt32Builder(vectorized.Mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

func int64Array(vs []int64) arrow.Array {
	b := array.NewInt64Builder(vectorized.Mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// stateRows writes canonical rows of schema s into a keyed part, in
// batches: each record is key_group, then extra (one array per extra
// field, cut alongside the rows), then the columns of s. The key group
// comes from the columns keys of s.
type stateRows struct {
	part   string
	s      types.Schema
	keys   []int
	extra  []arrow.Field
	schema *arrow.Schema // key_group ++ extra ++ s
	rowsAS *arrow.Schema // s
}

func newStateRows(part string, s types.Schema, keys []int, extra ...arrow.Field) (*stateRows, error) {
	as, err := types.ArrowSchema(s)
	if err != nil {
		return nil, err
	}
	fields := append([]arrow.Field{keyGroupField}, extra...)
	fields = append(fields, as.Fields()...)
	return &stateRows{part: part, s: s, keys: keys, extra: extra, schema: arrow.NewSchema(fields, nil), rowsAS: as}, nil
}

// write writes rows with their extra columns (each of len(rows) values)
// in batches of at most stateRowsPerBatch rows.
func (sr *stateRows) write(w vectorized.StateWriter, rows [][]any, extra []arrow.Array) error {
	for lo := 0; lo < len(rows); lo += stateRowsPerBatch {
		hi := min(lo+stateRowsPerBatch, len(rows))
		rec, err := buildRows(sr.rowsAS, sr.s, rows[lo:hi])
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", sr.part, err)
		}
		cols := []arrow.Array{int32Array(keyGroupsOf(rec, sr.keys))}
		for _, e := range extra {
			cols = append(cols, array.NewSlice(e, int64(lo), int64(hi)))
		}
		cols = append(cols, rec.Columns()...)
		out := array.NewRecordBatch(sr.schema, cols, int64(hi-lo))
		err = w.Write(sr.part, out)
		out.Release()
		rec.Release()
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", sr.part, err)
		}
	}
	return nil
}

// read calls fn with every row of the part whose key group r owns: its
// record and row index (for the extra columns, at 1..len(extra)) and its
// canonical values of s.
func (sr *stateRows) read(r vectorized.StateReader, fn func(rec arrow.RecordBatch, i int, row []any) error) error {
	return r.Read(sr.part, func(rec arrow.RecordBatch) error {
		if err := checkStateSchema(sr.part, rec, sr.schema); err != nil {
			return err
		}
		kg := rec.Column(0).(*array.Int32)
		off := 1 + len(sr.extra)
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			if !r.Owns(int(kg.Value(i))) {
				continue
			}
			row := make([]any, len(sr.s))
			for c := range sr.s {
				row[c] = types.GetValue(rec.Column(off+c), i, sr.s[c].Type)
			}
			if err := fn(rec, i, row); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkStateSchema reports a state record that does not have the schema
// the operator writes (a checkpoint of another query or version).
func checkStateSchema(part string, rec arrow.RecordBatch, want *arrow.Schema) error {
	got := rec.Schema()
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("restoring %s: state of %d columns, want %d (the query changed?)", part, got.NumFields(), want.NumFields())
	}
	for i := range want.NumFields() {
		if !arrow.TypeEqual(got.Field(i).Type, want.Field(i).Type) {
			return fmt.Errorf("restoring %s: state column %d is %s, want %s (the query changed?)", part, i, got.Field(i).Type, want.Field(i).Type)
		}
	}
	return nil
}

// minInt64s reads a non-keyed part of int64 columns written by
// writeInt64s and returns, per column, the minimum over all rows (of all
// former instances); ok is false when nobody wrote the part.
func minInt64s(r vectorized.StateReader, part string, ncols int) (mins []int64, ok bool, err error) {
	mins = make([]int64, ncols)
	for i := range mins {
		mins[i] = math.MaxInt64
	}
	err = r.Read(part, func(rec arrow.RecordBatch) error {
		if int(rec.NumCols()) != ncols {
			return fmt.Errorf("restoring %s: state of %d columns, want %d (the query changed?)", part, rec.NumCols(), ncols)
		}
		for c := 0; c < ncols; c++ {
			a, isInt := rec.Column(c).(*array.Int64)
			if !isInt {
				return fmt.Errorf("restoring %s: state column %d is %s, want int64", part, c, rec.Column(c).DataType())
			}
			for i := 0; i < a.Len(); i++ {
				ok = true
				mins[c] = min(mins[c], a.Value(i))
			}
		}
		return nil
	})
	return mins, ok, err
}

// writeInt64s writes one row of named int64 columns into a non-keyed
// part.
func writeInt64s(w vectorized.StateWriter, part string, names []string, vals []int64) error {
	fields := make([]arrow.Field, len(names))
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64}
		cols[i] = int64Array([]int64{vals[i]})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 1)
	defer rec.Release()
	if err := w.Write(part, rec); err != nil {
		return fmt.Errorf("snapshot %s: %w", part, err)
	}
	return nil
}
