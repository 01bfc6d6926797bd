package parquet

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/tablerun/tablerun/core/types"
)

// Op is the comparison of a Predicate.
type Op uint8

// The predicate operators. In is Column IN (Values); the others compare
// with Values[0] (IsNull/IsNotNull take none).
const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
	IsNull
	IsNotNull
	In
)

var opNames = [...]string{"=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL", "IN"}

// Predicate is one condition a row group's statistics can refute: either
// a comparison of column Column with constants (canonical Go values of
// the column's type, core/types), or, when Or is set, the disjunction of
// Or. A row group is skipped only when the statistics prove that no row
// satisfies it; anything the statistics cannot decide keeps the group.
type Predicate struct {
	Column int
	Op     Op
	Values []any
	Or     []Predicate
}

func (p Predicate) String() string {
	if p.Or != nil {
		parts := make([]string, len(p.Or))
		for i, q := range p.Or {
			parts[i] = q.String()
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	return fmt.Sprintf("$%d %s %v", p.Column, opNames[p.Op], p.Values)
}

// selectRowGroups returns the row groups the filter cannot exclude.
func selectRowGroups(pf *file.Reader, fields []pqarrow.SchemaField, spec ReadSpec) ([]int, error) {
	out := make([]int, 0, pf.NumRowGroups())
	for g := 0; g < pf.NumRowGroups(); g++ {
		rg := pf.MetaData().RowGroup(g)
		keep := true
		for _, p := range spec.Filter {
			if !mayMatch(p, rg, fields, spec.Physical) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, g)
		}
	}
	return out, nil
}

// mayMatch is false when rg's statistics prove no row satisfies p.
func mayMatch(p Predicate, rg *metadata.RowGroupMetaData, fields []pqarrow.SchemaField, physical types.Schema) bool {
	if p.Or != nil {
		for _, q := range p.Or {
			if mayMatch(q, rg, fields, physical) {
				return true
			}
		}
		return false
	}
	if p.Column < 0 || p.Column >= len(physical) {
		return true
	}
	col := physical[p.Column]
	fi := fieldByName(fields, col.Name)
	if fi < 0 {
		// Missing from the file: every value is NULL.
		return p.Op == IsNull
	}
	f := &fields[fi]
	if !f.IsLeaf() {
		return true
	}
	cc, err := rg.ColumnChunk(f.ColIndex)
	if err != nil {
		return true
	}
	ok, err := cc.StatsSet()
	if err != nil || !ok {
		return true
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return true
	}
	rows := rg.NumRows()
	switch p.Op {
	case IsNull:
		return !st.HasNullCount() || st.NullCount() > 0
	case IsNotNull:
		return !st.HasNullCount() || st.NullCount() < rows
	}
	if st.HasNullCount() && st.NullCount() == rows {
		return false // only NULLs: no comparison is true
	}
	if !st.HasMinMax() {
		return true
	}
	lo, hi, ok := bounds(st, col.Type)
	if !ok {
		return true
	}
	switch p.Op {
	case In:
		for _, v := range p.Values {
			if inRange(v, Eq, lo, hi, col.Type) {
				return true
			}
		}
		return false
	default:
		if len(p.Values) != 1 {
			return true
		}
		return inRange(p.Values[0], p.Op, lo, hi, col.Type)
	}
}

// bound is a min or max as a comparable value: int64, float64 or []byte.
type bound any

// bounds reads the min and max of a column chunk in the domain of the
// column's type; ok is false where tablerun does not trust or know them.
func bounds(st metadata.TypedStatistics, t types.Type) (lo, hi bound, ok bool) {
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		switch t.Kind {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
			if isUnsigned(st.Descr()) {
				return nil, nil, false
			}
			return int64(s.Min()), int64(s.Max()), true
		}
	case *metadata.Int64Statistics:
		switch t.Kind {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
			if isUnsigned(st.Descr()) {
				return nil, nil, false
			}
			return s.Min(), s.Max(), true
		case types.Timestamp, types.TimestampLTZ:
			ts, ok := st.Descr().LogicalType().(*schema.TimestampLogicalType)
			if !ok {
				return nil, nil, false
			}
			// Stored in the file's unit; compare in the column's.
			lo, hi := rescale(s.Min(), ts.TimeUnit(), t), rescale(s.Max(), ts.TimeUnit(), t)
			return lo, hi, true
		}
	case *metadata.Float32Statistics:
		if t.Kind == types.Float || t.Kind == types.Double {
			lo, hi := float64(s.Min()), float64(s.Max())
			if math.IsNaN(lo) || math.IsNaN(hi) {
				return nil, nil, false
			}
			return lo, hi, true
		}
	case *metadata.Float64Statistics:
		if t.Kind == types.Float || t.Kind == types.Double {
			lo, hi := s.Min(), s.Max()
			if math.IsNaN(lo) || math.IsNaN(hi) {
				return nil, nil, false
			}
			return lo, hi, true
		}
	case *metadata.ByteArrayStatistics:
		if t.Kind == types.Char || t.Kind == types.VarChar || t.Kind == types.Binary || t.Kind == types.VarBinary {
			// Only statistics ordered as unsigned bytes (current writers'
			// min_value/max_value for strings and plain binaries).
			if st.Descr().SortOrder() != schema.SortUNSIGNED {
				return nil, nil, false
			}
			return []byte(s.Min()), []byte(s.Max()), true
		}
	}
	return nil, nil, false
}

func isUnsigned(c *schema.Column) bool {
	if it, ok := c.LogicalType().(*schema.IntLogicalType); ok {
		return !it.IsSigned()
	}
	return false
}

// rescale converts a timestamp of unit u to the column's unit (µs for
// p ≤ 6, ns above), rounding down.
func rescale(v int64, u schema.TimeUnitType, t types.Type) int64 {
	nanos := types.IsNanoTimestamp(t)
	switch u {
	case schema.TimeUnitMillis:
		if nanos {
			return v * 1e6
		}
		return v * 1e3
	case schema.TimeUnitMicros:
		if nanos {
			return v * 1e3
		}
		return v
	default:
		if nanos {
			return v
		}
		return floorDiv(v, 1e3)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// asBound converts a canonical value to the domain of bounds.
func asBound(v any) (bound, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case float32:
		return float64(x), !math.IsNaN(float64(x))
	case float64:
		return x, !math.IsNaN(x)
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	}
	return nil, false
}

func cmp(a, b bound) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return compare(x, y), true
		case float64:
			return compare(float64(x), y), true
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return compare(x, y), true
		case int64:
			return compare(x, float64(y)), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), true
		}
	}
	return 0, false
}

func compare[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inRange reports whether some x in [lo, hi] may satisfy x op v.
func inRange(v any, op Op, lo, hi bound, t types.Type) bool {
	b, ok := asBound(v)
	if !ok {
		return true
	}
	cl, ok1 := cmp(lo, b) // sign of lo - v
	ch, ok2 := cmp(hi, b) // sign of hi - v
	if !ok1 || !ok2 {
		return true
	}
	switch op {
	case Eq:
		return cl <= 0 && ch >= 0
	case Ne:
		return !(cl == 0 && ch == 0)
	case Lt:
		return cl < 0
	case Le:
		return cl <= 0
	case Gt:
		return ch > 0
	case Ge:
		return ch >= 0
	}
	return true
}

// ValueMayMatch evaluates a predicate (not an Or) on a single value v (nil:
// NULL), such as a partition's: false when v cannot satisfy it.
func ValueMayMatch(p Predicate, v any) bool {
	switch p.Op {
	case IsNull:
		return v == nil
	case IsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	if b, ok := v.(bool); ok {
		eq := func(x any) bool { y, ok := x.(bool); return !ok || y == b }
		ne := func(x any) bool { y, ok := x.(bool); return !ok || y != b }
		switch p.Op {
		case Eq:
			return len(p.Values) != 1 || eq(p.Values[0])
		case Ne:
			return len(p.Values) != 1 || ne(p.Values[0])
		case In:
			for _, x := range p.Values {
				if eq(x) {
					return true
				}
			}
			return false
		}
		return true
	}
	b, ok := asBound(v)
	if !ok {
		return true
	}
	if p.Op == In {
		for _, x := range p.Values {
			if inRange(x, Eq, b, b, types.Type{}) {
				return true
			}
		}
		return false
	}
	if len(p.Values) != 1 {
		return true
	}
	return inRange(p.Values[0], p.Op, b, b, types.Type{})
}
