package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// View is the materialized current rows of a changelog, as Flink's SQL
// client keeps them in the table result mode: +I and +U add a row, -U and
// -D remove an equal row. It keeps only the current rows (one entry per
// row, found through a hash index), never the changes, so it stays as
// large as the result however long the query runs. With a cap (maxRows >
// 0, Flink's sql-client.execution.max-table-result.rows) the oldest rows
// are dropped once there are more; Cut counts them so a client can say
// so. A View is not safe for concurrent use.
type View struct {
	maxRows int
	// entries are the rows in arrival order; removed ones have a nil row
	// until the next compaction.
	entries []viewEntry
	head    int // entries before head were removed by the cap
	live    int
	// index finds a live entry of each distinct row; dups holds the
	// further entries of rows that are present more than once.
	index map[string]int
	dups  map[string][]int
	// pending counts -U changes not followed by their +U yet.
	pending int
	changes int64
	cut     int64
	key     []byte
}

type viewEntry struct {
	key string
	row Row
}

// NewView returns an empty view that keeps at most maxRows rows (0: no
// cap).
func NewView(maxRows int) *View {
	return &View{maxRows: maxRows, index: map[string]int{}}
}

// Apply applies one change. A -U or -D of a row the view does not hold
// (it was cut, or never inserted) is ignored, as in Flink.
func (v *View) Apply(kind changelog.RowKind, row Row) {
	v.changes++
	switch kind {
	case changelog.UpdateBefore:
		v.pending++
	case changelog.UpdateAfter:
		if v.pending > 0 {
			v.pending--
		}
	}
	v.key = appendKey(v.key[:0], row)
	switch kind {
	case changelog.Insert, changelog.UpdateAfter:
		v.add(string(v.key), row)
	default:
		v.remove(string(v.key), false)
	}
}

// ApplyBatch applies the changes of b in order.
func (v *View) ApplyBatch(b ChangeBatch) {
	for i, row := range b.Rows {
		v.Apply(b.Kinds[i], row)
	}
}

func (v *View) add(key string, row Row) {
	pos := len(v.entries)
	v.entries = append(v.entries, viewEntry{key, row})
	v.live++
	if _, ok := v.index[key]; ok {
		if v.dups == nil {
			v.dups = map[string][]int{}
		}
		v.dups[key] = append(v.dups[key], pos)
	} else {
		v.index[key] = pos
	}
	for v.maxRows > 0 && v.live > v.maxRows {
		for v.entries[v.head].row == nil {
			v.head++
		}
		v.remove(v.entries[v.head].key, true)
		v.cut++
	}
}

// remove removes one entry of the row with key: the oldest one (the cap)
// or the newest (a retraction), so that the index keeps the oldest.
func (v *View) remove(key string, oldest bool) {
	pos, ok := v.index[key]
	if !ok {
		return
	}
	if d := v.dups[key]; len(d) > 0 {
		if oldest {
			// promote the next duplicate
			v.index[key] = d[0]
			v.dups[key] = d[1:]
		} else {
			pos = d[len(d)-1]
			v.dups[key] = d[:len(d)-1]
		}
		if len(v.dups[key]) == 0 {
			delete(v.dups, key)
		}
	} else {
		delete(v.index, key)
	}
	v.entries[pos] = viewEntry{}
	v.live--
	if dead := len(v.entries) - v.live; dead > 1024 && dead > v.live {
		v.compact()
	}
}

// compact drops the removed entries, keeping the order.
func (v *View) compact() {
	out := v.entries[:0]
	clear(v.index)
	v.dups = nil
	for _, e := range v.entries {
		if e.row == nil {
			continue
		}
		pos := len(out)
		out = append(out, e)
		if _, ok := v.index[e.key]; ok {
			if v.dups == nil {
				v.dups = map[string][]int{}
			}
			v.dups[e.key] = append(v.dups[e.key], pos)
		} else {
			v.index[e.key] = pos
		}
	}
	clear(v.entries[len(out):])
	v.entries = out
	v.head = 0
}

// Len returns the number of current rows.
func (v *View) Len() int { return v.live }

// Changes returns the number of changes applied.
func (v *View) Changes() int64 { return v.changes }

// Cut returns the number of rows the cap dropped.
func (v *View) Cut() int64 { return v.cut }

// Pending reports whether a -U was applied whose +U has not come yet:
// the view is then between the two halves of an update, and a client
// should not show it.
func (v *View) Pending() bool { return v.pending > 0 }

// Rows returns the current rows in the order they arrived. The slice is
// new; its rows are shared with the view and must not be modified.
func (v *View) Rows() []Row { return v.Last(v.live) }

// Last returns the last n current rows (fewer when the view is smaller),
// in arrival order.
func (v *View) Last(n int) []Row {
	n = min(n, v.live)
	out := make([]Row, n)
	for i := len(v.entries) - 1; i >= 0 && n > 0; i-- {
		if r := v.entries[i].row; r != nil {
			n--
			out[n] = r
		}
	}
	return out
}

// First returns the first n current rows, in arrival order.
func (v *View) First(n int) []Row {
	n = min(n, v.live)
	out := make([]Row, 0, n)
	for _, e := range v.entries {
		if len(out) == n {
			break
		}
		if e.row != nil {
			out = append(out, e.row)
		}
	}
	return out
}

// Materialize reads the result's changelog into a View capped at maxRows
// (0: no cap) and yields the view after each batch of changes that leaves
// no update half-applied (see View.Pending). The view is the same value
// each time; it is valid until the loop goes on. Like Changes it keeps no
// change, only the current rows.
func (r *TableResult) Materialize(maxRows int) func(yield func(*View) bool) {
	return func(yield func(*View) bool) {
		v := NewView(maxRows)
		for b := range r.ChangeBatches() {
			v.ApplyBatch(b)
			if !v.Pending() && !yield(v) {
				return
			}
		}
		yield(v)
	}
}

// appendKey appends an encoding of row to buf such that two rows have the
// same encoding exactly when their canonical values are equal.
func appendKey(buf []byte, row Row) []byte {
	for _, x := range row {
		buf = appendValueKey(buf, x)
	}
	return buf
}

func appendValueKey(buf []byte, x any) []byte {
	switch v := x.(type) {
	case nil:
		return append(buf, 'N')
	case bool:
		if v {
			return append(buf, 'T')
		}
		return append(buf, 'F')
	case int8:
		return strconv.AppendInt(append(buf, 'b'), int64(v), 10)
	case int16:
		return strconv.AppendInt(append(buf, 's'), int64(v), 10)
	case int32:
		return strconv.AppendInt(append(buf, 'i'), int64(v), 10)
	case int64:
		return strconv.AppendInt(append(buf, 'l'), v, 10)
	case float32:
		return strconv.AppendUint(append(buf, 'f'), uint64(math.Float32bits(v)), 16)
	case float64:
		return strconv.AppendUint(append(buf, 'd'), math.Float64bits(v), 16)
	case string:
		buf = strconv.AppendInt(append(buf, 'S'), int64(len(v)), 10)
		return append(append(buf, ':'), v...)
	case []byte:
		buf = strconv.AppendInt(append(buf, 'B'), int64(len(v)), 10)
		return append(append(buf, ':'), v...)
	case decimal128.Num:
		buf = strconv.AppendInt(append(buf, 'D'), v.HighBits(), 10)
		return strconv.AppendUint(append(buf, '.'), v.LowBits(), 10)
	case time.Time:
		return strconv.AppendInt(append(buf, 't'), v.UnixNano(), 10)
	case []any:
		buf = strconv.AppendInt(append(buf, '['), int64(len(v)), 10)
		for _, e := range v {
			buf = appendValueKey(buf, e)
		}
		return append(buf, ']')
	case *types.MapValue:
		if v == nil {
			return append(buf, 'N')
		}
		buf = strconv.AppendInt(append(buf, '{'), int64(len(v.Keys)), 10)
		for i, k := range v.Keys {
			buf = appendValueKey(buf, k)
			if i < len(v.Values) {
				buf = appendValueKey(buf, v.Values[i])
			}
		}
		return append(buf, '}')
	}
	s := fmt.Sprintf("%T%#v", x, x)
	buf = strconv.AppendInt(append(buf, '?'), int64(len(s)), 10)
	return append(append(buf, ':'), strings.ToValidUTF8(s, "")...)
}
