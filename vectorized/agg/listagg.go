package agg

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuncListAgg is LISTAGG(expr [, separator]) (Flink's ListAggFunction /
// ListAggWithRetractAggFunction).
const FuncListAgg = "LISTAGG"

// listAggTypesOK reports whether LISTAGG takes arguments of argTypes: one
// or two strings.
func listAggTypesOK(argTypes []arrow.DataType) bool {
	if len(argTypes) != 1 && len(argTypes) != 2 {
		return false
	}
	for _, t := range argTypes {
		if t.ID() != arrow.STRING {
			return false
		}
	}
	return true
}

// listAgg concatenates the non-NULL values of a group in arrival order,
// separated by the separator (',' by default; a row whose separator is
// NULL is skipped as a row with a NULL argument); NULL for a group
// without values. It keeps every value per group so that a retraction
// removes one occurrence (the first, as Java's List.remove) and the result
// is rebuilt from the rest, as Flink's ListAggWithRetractAggFunction does.
type listAgg struct {
	spec
	vals   [][]string
	sep    []string // the group's separator (the last one seen)
	joined []string // cached result per group
	dirty  []bool
	mask   []bool
	bytes  int64
}

func newListAgg(argTypes []arrow.DataType) (*listAgg, error) {
	if !listAggTypesOK(argTypes) {
		return nil, fmt.Errorf("agg: LISTAGG(%s): %w", typeList(argTypes), ErrNotSupported)
	}
	l := &listAgg{}
	l.setSpec(argTypes)
	return l, nil
}

// Resize implements Accumulator and Stepper.
func (l *listAgg) Resize(n int) {
	for len(l.vals) < n {
		l.vals = append(l.vals, nil)
		l.sep = append(l.sep, ",")
		l.joined = append(l.joined, "")
		l.dirty = append(l.dirty, false)
	}
}

// Clear implements Stepper.
func (l *listAgg) Clear(g uint32) {
	for _, v := range l.vals[g] {
		l.bytes -= int64(len(v)) + 16
	}
	l.bytes -= int64(len(l.joined[g]))
	l.vals[g], l.joined[g], l.dirty[g] = nil, "", false
}

// SizeBytes implements Accumulator and Stepper.
func (l *listAgg) SizeBytes() int64 { return l.bytes + int64(len(l.vals))*64 }

func (l *listAgg) add(g uint32, args []arrow.Array, i int) {
	v := strings.Clone(args[0].(*array.String).Value(i))
	if len(args) > 1 {
		l.sep[g] = strings.Clone(args[1].(*array.String).Value(i))
	}
	if !l.dirty[g] {
		old := len(l.joined[g])
		if len(l.vals[g]) > 0 {
			l.joined[g] += l.sep[g]
		}
		l.joined[g] += v
		l.bytes += int64(len(l.joined[g]) - old)
	}
	l.vals[g] = append(l.vals[g], v)
	l.bytes += int64(len(v)) + 16
}

func (l *listAgg) retract(g uint32, args []arrow.Array, i int) {
	v := args[0].(*array.String).Value(i)
	for k, x := range l.vals[g] {
		if x == v {
			l.vals[g] = append(l.vals[g][:k], l.vals[g][k+1:]...)
			l.bytes -= int64(len(v)) + 16
			l.dirty[g] = true
			return
		}
	}
}

// value returns group g's result.
func (l *listAgg) value(g uint32) (string, bool) {
	if len(l.vals[g]) == 0 {
		return "", false
	}
	if l.dirty[g] {
		l.bytes -= int64(len(l.joined[g]))
		l.joined[g] = strings.Join(l.vals[g], l.sep[g])
		l.bytes += int64(len(l.joined[g]))
		l.dirty[g] = false
	}
	return l.joined[g], true
}

// Update implements Accumulator.
func (l *listAgg) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := l.check(groupIDs, args, filter); err != nil {
		return err
	}
	m := rowMask(&l.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m == nil || m[i] {
			l.add(g, args, i)
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (l *listAgg) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(l.vals))
	for g := range l.vals {
		if s, ok := l.value(uint32(g)); ok {
			b.Append(s)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

// Step implements Stepper.
func (l *listAgg) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if err := checkArgs(ids, args, l.argTypes, nil); err != nil {
		return nil, err
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(2 * len(ids))
	put := func(s string, ok bool) {
		if ok {
			b.Append(s)
		} else {
			b.AppendNull()
		}
	}
	for i, g := range ids {
		before, bok := l.value(g)
		put(before, bok)
		switch ops[i] {
		case OpAdd:
			l.add(g, args, i)
		case OpRetract:
			l.retract(g, args, i)
		default:
			put(before, bok)
			continue
		}
		after, aok := l.value(g)
		put(after, aok)
		if aok != bok || after != before {
			changed[i] = true
		}
	}
	return b.NewArray(), nil
}
