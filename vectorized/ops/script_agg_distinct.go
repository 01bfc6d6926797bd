package ops

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// DISTINCT calls of script aggregate functions (my_agg(DISTINCT x, …))
// de-duplicate per group before accumulate: a group keeps the encoded
// argument rows it has seen (batch) or a count of the copies of each
// (streaming), and a row reaches the script only when its arguments enter
// the group (accumulate) or leave it (retract, when the last copy is
// retracted). As for user-defined aggregates in Flink, a row of NULL
// arguments is a value like any other: it is accumulated once per group.

// appendDistinctKey appends an unambiguous encoding of the canonical Go
// value v (one argument; the argument's type is fixed per column).
func appendDistinctKey(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, 0)
	case bool:
		if x {
			return append(buf, 1, 1)
		}
		return append(buf, 1, 0)
	case int8:
		return binary.AppendVarint(append(buf, 2), int64(x))
	case int16:
		return binary.AppendVarint(append(buf, 2), int64(x))
	case int32:
		return binary.AppendVarint(append(buf, 2), int64(x))
	case int64:
		return binary.AppendVarint(append(buf, 2), x)
	case float32:
		return appendFloatKey(buf, float64(x))
	case float64:
		return appendFloatKey(buf, x)
	case string:
		buf = binary.AppendUvarint(append(buf, 4), uint64(len(x)))
		return append(buf, x...)
	case []byte:
		buf = binary.AppendUvarint(append(buf, 5), uint64(len(x)))
		return append(buf, x...)
	case decimal128.Num:
		buf = binary.LittleEndian.AppendUint64(append(buf, 6), x.LowBits())
		return binary.LittleEndian.AppendUint64(buf, uint64(x.HighBits()))
	case []any:
		buf = binary.AppendUvarint(append(buf, 7), uint64(len(x)))
		for _, e := range x {
			buf = appendDistinctKey(buf, e)
		}
		return buf
	case *types.MapValue:
		buf = binary.AppendUvarint(append(buf, 8), uint64(len(x.Keys)))
		for i := range x.Keys {
			buf = appendDistinctKey(buf, x.Keys[i])
			buf = appendDistinctKey(buf, x.Values[i])
		}
		return buf
	}
	s := fmt.Sprintf("%T:%v", v, v)
	buf = binary.AppendUvarint(append(buf, 9), uint64(len(s)))
	return append(buf, s...)
}

// appendFloatKey encodes a float so that 0.0 and -0.0 are one value and
// every NaN is one value (SQL equality for DISTINCT).
func appendFloatKey(buf []byte, f float64) []byte {
	switch {
	case f == 0:
		f = 0
	case math.IsNaN(f):
		f = math.NaN()
	}
	return binary.LittleEndian.AppendUint64(append(buf, 3), math.Float64bits(f))
}

// distinctKey encodes one argument row.
func distinctKey(buf []byte, vals []any) []byte {
	buf = buf[:0]
	for _, v := range vals {
		buf = appendDistinctKey(buf, v)
	}
	return buf
}

// distinctSeen is the batch form: the argument rows each group has seen.
type distinctSeen struct {
	seen  []map[string]struct{}
	buf   []byte
	bytes int64
}

func (d *distinctSeen) resize(n int) {
	if n > len(d.seen) {
		d.seen = append(d.seen, make([]map[string]struct{}, n-len(d.seen))...)
	}
}

// first records vals in group g and reports whether they are new there.
func (d *distinctSeen) first(g uint32, vals []any) bool {
	d.buf = distinctKey(d.buf, vals)
	m := d.seen[g]
	if m == nil {
		m = map[string]struct{}{}
		d.seen[g] = m
	}
	if _, ok := m[string(d.buf)]; ok {
		return false
	}
	m[string(d.buf)] = struct{}{}
	d.bytes += int64(len(d.buf)) + 48
	return true
}

// distinctCounts is the streaming form: the copies of each argument row
// per group.
type distinctCounts struct {
	counts []map[string]int64
	buf    []byte
	bytes  int64
}

func (d *distinctCounts) resize(n int) {
	if n > len(d.counts) {
		d.counts = append(d.counts, make([]map[string]int64, n-len(d.counts))...)
	}
}

func (d *distinctCounts) clear(g uint32) {
	if int(g) < len(d.counts) {
		d.counts[g] = nil
	}
}

// add counts one more copy of vals in group g and reports whether they
// entered the group (0 → 1 copies).
func (d *distinctCounts) add(g uint32, vals []any) bool {
	d.buf = distinctKey(d.buf, vals)
	m := d.counts[g]
	if m == nil {
		m = map[string]int64{}
		d.counts[g] = m
	}
	c := m[string(d.buf)]
	m[string(d.buf)] = c + 1
	if c == 0 {
		d.bytes += int64(len(d.buf)) + 56
	}
	return c == 0
}

// remove takes one copy of vals out of group g and reports whether they
// left the group (1 → 0 copies). Removing a value the group does not hold
// changes nothing.
func (d *distinctCounts) remove(g uint32, vals []any) bool {
	d.buf = distinctKey(d.buf, vals)
	m := d.counts[g]
	c := m[string(d.buf)]
	switch {
	case c == 1:
		delete(m, string(d.buf))
		d.bytes -= int64(len(d.buf)) + 56
		return true
	case c > 1:
		m[string(d.buf)] = c - 1
	}
	return false
}

// export encodes the counts of the given groups, one BINARY value per
// group (NULL: none): pairs of (uvarint length, key, uvarint count).
func (d *distinctCounts) export(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	var buf []byte
	for _, g := range groups {
		if int(g) >= len(d.counts) || len(d.counts[g]) == 0 {
			b.AppendNull()
			continue
		}
		buf = buf[:0]
		for k, c := range d.counts[g] {
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			buf = append(buf, k...)
			buf = binary.AppendUvarint(buf, uint64(c))
		}
		b.Append(buf)
	}
	return b.NewArray()
}

// restore decodes row i of a column made by export into group g.
func (d *distinctCounts) restore(g uint32, a arrow.Array, i int) error {
	if a.IsNull(i) {
		d.counts[g] = nil
		return nil
	}
	bin, ok := a.(*array.Binary)
	if !ok {
		return errBadScriptState
	}
	b := bin.Value(i)
	m := map[string]int64{}
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return errBadScriptState
		}
		key := string(b[k : k+int(n)])
		b = b[k+int(n):]
		c, k := binary.Uvarint(b)
		if k <= 0 || c == 0 {
			return errBadScriptState
		}
		b = b[k:]
		m[key] = int64(c)
		d.bytes += int64(len(key)) + 56
	}
	d.counts[g] = m
	return nil
}
