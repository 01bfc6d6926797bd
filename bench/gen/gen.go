// Package gen holds deterministic data generators shared by tablerun's
// benchmarks and the side-by-side comparisons with other engines.
//
// Every generator is a pure function of its arguments: the same rows, keys
// and seed give the same data on every machine and Go version (the random
// source is math/rand/v2's PCG, whose output is specified).
package gen

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// seedStream is the PCG stream constant mixed into every seed.
const seedStream = 0x9e3779b97f4a7c15

// ErrInvalidSize reports a negative row count, a key count below one or a
// batch size below one.
var ErrInvalidSize = errors.New("gen: invalid size")

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^seedStream))
}

func checkSizes(rows, keys int) error {
	if rows < 0 || keys < 1 {
		return fmt.Errorf("%w: rows=%d keys=%d", ErrInvalidSize, rows, keys)
	}
	return nil
}

// GroupByData returns rows int64 group keys drawn uniformly from the keys
// distinct values 0..keys-1 and rows float64 values uniform in [0, 1000).
// Keys are the same as those of GroupByIntData and WriteCSV for the same
// arguments. It returns ErrInvalidSize for rows < 0 or keys < 1.
func GroupByData(rows, keys int, seed uint64) ([]int64, []float64, error) {
	if err := checkSizes(rows, keys); err != nil {
		return nil, nil, err
	}
	r := newRand(seed)
	ks := make([]int64, rows)
	vs := make([]float64, rows)
	n := uint64(keys)
	for i := range ks {
		ks[i] = int64(r.Uint64N(n))
		vs[i] = r.Float64() * 1000
	}
	return ks, vs, nil
}

// GroupByIntData is GroupByData with int64 values uniform in 0..999 instead
// of float64 values. Keys are identical to GroupByData's for the same
// arguments.
func GroupByIntData(rows, keys int, seed uint64) ([]int64, []int64, error) {
	if err := checkSizes(rows, keys); err != nil {
		return nil, nil, err
	}
	r := newRand(seed)
	ks := make([]int64, rows)
	vs := make([]int64, rows)
	n := uint64(keys)
	for i := range ks {
		ks[i] = int64(r.Uint64N(n))
		vs[i] = int64(r.Float64() * 1000)
	}
	return ks, vs, nil
}

// GroupBySchema returns the schema of the batches made by RecordBatches:
// a non-null BIGINT column k and a non-null column v of the value type.
func GroupBySchema(value arrow.DataType) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: value},
	}, nil)
}

// RecordBatches cuts keys and values into Arrow record batches of at most
// batchSize rows (the last one may be shorter) with the schema
// GroupBySchema. The caller owns the batches and must Release them. It
// returns ErrInvalidSize if batchSize < 1 or the slices differ in length.
func RecordBatches[V int64 | float64](mem memory.Allocator, keys []int64, values []V, batchSize int) ([]arrow.RecordBatch, error) {
	if batchSize < 1 || len(keys) != len(values) {
		return nil, fmt.Errorf("%w: batchSize=%d len(keys)=%d len(values)=%d",
			ErrInvalidSize, batchSize, len(keys), len(values))
	}
	var valueType arrow.DataType = arrow.PrimitiveTypes.Float64
	if _, ok := any(values).([]int64); ok {
		valueType = arrow.PrimitiveTypes.Int64
	}
	schema := GroupBySchema(valueType)
	out := make([]arrow.RecordBatch, 0, (len(keys)+batchSize-1)/batchSize)
	kb := array.NewInt64Builder(mem)
	defer kb.Release()
	for lo := 0; lo < len(keys); lo += batchSize {
		hi := min(lo+batchSize, len(keys))
		kb.AppendValues(keys[lo:hi], nil)
		k := kb.NewArray()
		var v arrow.Array
		switch vs := any(values[lo:hi]).(type) {
		case []float64:
			b := array.NewFloat64Builder(mem)
			b.AppendValues(vs, nil)
			v = b.NewArray()
			b.Release()
		case []int64:
			b := array.NewInt64Builder(mem)
			b.AppendValues(vs, nil)
			v = b.NewArray()
			b.Release()
		}
		out = append(out, array.NewRecordBatch(schema, []arrow.Array{k, v}, int64(hi-lo)))
		k.Release()
		v.Release()
	}
	return out, nil
}

// WriteCSV writes a CSV file at path of rows lines of two integers, the
// keys of GroupByIntData(rows, keys, seed) and its values, without a header
// line (Flink's csv format has no header option). An existing file is
// replaced.
func WriteCSV(path string, rows, keys int, seed uint64) (err error) {
	ks, vs, err := GroupByIntData(rows, keys, seed)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gen: write csv: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("gen: write csv: %w", cerr)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	line := make([]byte, 0, 64)
	for i := range ks {
		line = strconv.AppendInt(line, ks[i], 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, vs[i], 10)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return fmt.Errorf("gen: write csv: %w", err)
		}
		line = line[:0]
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("gen: write csv: %w", err)
	}
	return nil
}
