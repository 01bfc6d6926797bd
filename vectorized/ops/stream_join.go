package ops

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// StreamJoinSpec describes a streaming regular join.
type StreamJoinSpec struct {
	// Kind is inner, left, right or full (semi and anti joins are not
	// supported yet).
	Kind logical.JoinKind
	// LeftKeys and RightKeys are the equality keys; none means every row
	// has the same key. A NULL key matches nothing.
	LeftKeys, RightKeys []int
	// Left, Right and Out are the schemas; Out is Left ++ Right.
	Left, Right, Out types.Schema
	// Cond is the non-equality part of the condition over a joined row
	// (left ++ right values); nil is TRUE.
	Cond func(row []any) (bool, error)
}

// StreamJoin is Flink's streaming regular join (StreamingJoinOperator):
// both inputs are changelogs, every row is kept in the state of its side
// under its join key, and every input row immediately emits its joined
// changes, in input order. An inner join forwards the input's row kind
// (+I/+U/-U/-D); an outer join emits +I and -D only: a row of an outer
// side without a match is emitted padded with NULLs (+I[l, null]) and
// retracted (-D[l, null]) when its first match arrives, and re-emitted
// when its last match is retracted. The rows of one key are matched in
// insertion order.
//
// State is kept as rows of Go values (row at a time); it is correct but
// not yet vectorized.
type StreamJoin struct {
	spec    StreamJoinSpec
	sides   [2]joinSide
	markers *inputMarkers
}

type joinSide struct {
	keys  []int
	width int
	outer bool
	recs  map[string][]*joinRec // join key → its rows, in insertion order
}

// joinRec is one row in a side's state (each copy of a duplicate row is
// its own record). assoc counts its current matches (outer sides).
type joinRec struct {
	row   []any
	assoc int
}

// NewStreamJoin returns a streaming join.
func NewStreamJoin(spec StreamJoinSpec) *StreamJoin {
	j := &StreamJoin{spec: spec, markers: newInputMarkers(2)}
	j.sides[0] = joinSide{keys: spec.LeftKeys, width: len(spec.Left), recs: map[string][]*joinRec{},
		outer: spec.Kind == logical.LeftJoin || spec.Kind == logical.FullJoin}
	j.sides[1] = joinSide{keys: spec.RightKeys, width: len(spec.Right), recs: map[string][]*joinRec{},
		outer: spec.Kind == logical.RightJoin || spec.Kind == logical.FullJoin}
	return j
}

// Open implements the two-input operator protocol.
func (j *StreamJoin) Open(context.Context) error {
	switch j.spec.Kind {
	case logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin:
	default:
		return fmt.Errorf("not supported yet: %s in streaming mode", j.spec.Kind)
	}
	if len(j.spec.LeftKeys) != len(j.spec.RightKeys) {
		return fmt.Errorf("internal: %d left keys and %d right keys", len(j.spec.LeftKeys), len(j.spec.RightKeys))
	}
	if len(j.spec.Out) != len(j.spec.Left)+len(j.spec.Right) {
		return fmt.Errorf("internal: join output of %d columns for inputs of %d and %d", len(j.spec.Out), len(j.spec.Left), len(j.spec.Right))
	}
	return nil
}

// key encodes a row's join key; ok is false when a key column is NULL.
func (s *joinSide) key(row []any) (string, bool) {
	if len(s.keys) == 0 {
		return "", true
	}
	var buf []byte
	for _, k := range s.keys {
		if row[k] == nil {
			return "", false
		}
		buf = appendKey(buf, row[k])
	}
	return string(buf), true
}

// appendKey appends an unambiguous encoding of a key value. Keys of both
// sides have the same type, so the encodings compare as the values do
// (floats: -0.0 = 0.0; NaN equals NaN, unlike '=').
func appendKey(buf []byte, v any) []byte {
	switch x := v.(type) {
	case int64:
		return binary.LittleEndian.AppendUint64(append(buf, 'l'), uint64(x))
	case int32:
		return binary.LittleEndian.AppendUint32(append(buf, 'i'), uint32(x))
	case int16:
		return binary.LittleEndian.AppendUint16(append(buf, 's'), uint16(x))
	case int8:
		return append(buf, 'b', byte(x))
	case bool:
		if x {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case float64:
		if x == 0 {
			x = 0
		}
		return binary.LittleEndian.AppendUint64(append(buf, 'd'), math.Float64bits(x))
	case float32:
		if x == 0 {
			x = 0
		}
		return binary.LittleEndian.AppendUint32(append(buf, 'r'), math.Float32bits(x))
	case string:
		buf = binary.AppendUvarint(append(buf, 'S'), uint64(len(x)))
		return append(buf, x...)
	case []byte:
		buf = binary.AppendUvarint(append(buf, 'B'), uint64(len(x)))
		return append(buf, x...)
	}
	s := fmt.Sprintf("%#v", v)
	buf = binary.AppendUvarint(append(buf, '?'), uint64(len(s)))
	return append(buf, s...)
}

// sameRow reports whether two rows hold equal values.
func sameRow(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x == nil || y == nil {
			if x != y {
				return false
			}
			continue
		}
		if reflect.TypeOf(x).Comparable() && reflect.TypeOf(y).Comparable() {
			if x != y {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// Process feeds one batch of side 0 (left) or 1 (right).
func (j *StreamJoin) Process(ctx context.Context, side int, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	schema := j.spec.Left
	if side == 1 {
		schema = j.spec.Right
	}
	if int(b.Rec.NumCols()) != len(schema) {
		return fmt.Errorf("internal: join input of %d columns, want %d", b.Rec.NumCols(), len(schema))
	}
	rows := types.RecordRows(b.Rec, schema)
	var outRows [][]any
	var kinds []changelog.RowKind
	emit := func(k changelog.RowKind, row []any) {
		outRows = append(outRows, row)
		kinds = append(kinds, k)
	}
	for i, row := range rows {
		if err := j.processRow(side, b.Kind(i), row, emit); err != nil {
			return err
		}
	}
	if len(outRows) == 0 {
		return nil
	}
	rec, err := types.BuildRecord(vectorized.Mem, j.spec.Out, outRows)
	if err != nil {
		return err
	}
	return out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: kinds})
}

// joined builds the output row of an input row and a row of the other
// side (nil: NULL padding).
func (j *StreamJoin) joined(side int, row, other []any) []any {
	l, r := row, other
	if side == 1 {
		l, r = other, row
	}
	out := make([]any, 0, len(j.spec.Out))
	if l == nil {
		out = append(out, make([]any, j.sides[0].width)...)
	} else {
		out = append(out, l...)
	}
	if r == nil {
		out = append(out, make([]any, j.sides[1].width)...)
	} else {
		out = append(out, r...)
	}
	return out
}

// matches returns the records of the other side that join with row.
func (j *StreamJoin) matches(side int, key string, row []any) ([]*joinRec, error) {
	cands := j.sides[1-side].recs[key]
	if j.spec.Cond == nil {
		return cands, nil
	}
	var out []*joinRec
	for _, o := range cands {
		ok, err := j.spec.Cond(j.joined(side, row, o.row))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	return out, nil
}

func (j *StreamJoin) processRow(side int, kind changelog.RowKind, row []any, emit func(changelog.RowKind, []any)) error {
	me, other := &j.sides[side], &j.sides[1-side]
	key, hasKey := me.key(row)
	var assoc []*joinRec
	if hasKey {
		var err error
		if assoc, err = j.matches(side, key, row); err != nil {
			return err
		}
	}
	if !kind.IsRetraction() {
		rec := &joinRec{row: row, assoc: len(assoc)}
		if hasKey {
			me.recs[key] = append(me.recs[key], rec)
		}
		if me.outer && len(assoc) == 0 {
			emit(changelog.Insert, j.joined(side, row, nil))
			return nil
		}
		if other.outer {
			for _, o := range assoc {
				if o.assoc == 0 {
					emit(changelog.Delete, j.joined(1-side, o.row, nil))
				}
				o.assoc++
			}
		}
		k := kind
		if me.outer || other.outer {
			k = changelog.Insert
		}
		for _, o := range assoc {
			emit(k, j.joined(side, row, o.row))
		}
		return nil
	}
	// A retraction: drop one copy of the row from the state.
	if hasKey {
		recs := me.recs[key]
		for i, r := range recs {
			if sameRow(r.row, row) {
				recs = append(recs[:i:i], recs[i+1:]...)
				break
			}
		}
		if len(recs) == 0 {
			delete(me.recs, key)
		} else {
			me.recs[key] = recs
		}
	}
	if len(assoc) == 0 {
		if me.outer {
			emit(changelog.Delete, j.joined(side, row, nil))
		}
		return nil
	}
	k := kind
	if me.outer || other.outer {
		k = changelog.Delete
	}
	for _, o := range assoc {
		emit(k, j.joined(side, row, o.row))
	}
	if other.outer {
		for _, o := range assoc {
			if o.assoc == 1 {
				emit(changelog.Insert, j.joined(1-side, o.row, nil))
			}
			o.assoc--
		}
	}
	return nil
}

// OnMarker handles a marker of one side: the join's watermark is the
// minimum of both sides'; EndOfInput is forwarded once both sides have
// ended.
func (j *StreamJoin) OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	return j.markers.onMarker(ctx, side, m, out)
}

// Close releases the state.
func (j *StreamJoin) Close() error {
	j.sides[0].recs, j.sides[1].recs = nil, nil
	return nil
}
