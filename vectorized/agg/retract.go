package agg

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
)

// Op is what one input row does to its group's state in a streaming
// aggregate: nothing (a filtered-out row, a NULL argument), accumulate (+I
// and +U rows) or retract (-U and -D rows).
type Op uint8

// The row operations.
const (
	OpSkip Op = iota
	OpAdd
	OpRetract
)

// Stepper is the streaming (changelog) form of an aggregate call: it
// applies rows one at a time in row order, as Flink's GroupAggFunction
// does per record, while still running as one tight loop per batch.
//
// Step records, for every row, the result of the row's group before and
// after the row was applied, so that the operator can emit the exact
// per-record changelog (-U old, +U new) without evaluating groups one by
// one. Calling protocol, from one goroutine: Resize whenever the group
// table grew, then Step per batch; Clear when a group's last row was
// retracted (its state is dropped, as Flink clears the key's state).
type Stepper interface {
	// Resize makes room for groups 0..nGroups-1; new groups are empty.
	Resize(nGroups int)
	// Step applies ops[i] with the arguments of row i (args[k].Value(i))
	// to group ids[i], for i in order. It returns an array of the result
	// type with 2*len(ids) values: the group's result before row i at
	// 2*i and after it at 2*i+1; and it sets changed[i] to true where
	// they differ (it never resets a changed flag). Rows with OpSkip keep
	// before == after. A retraction needs a Stepper made with retract;
	// without it OpRetract is an error.
	Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error)
	// Clear empties group g.
	Clear(g uint32)
	// SizeBytes estimates the memory the state holds.
	SizeBytes() int64
}

// NewStepper returns the streaming accumulator of the aggregate function
// name (COUNT, COUNT_STAR, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, the
// variance family of stddev.go and LISTAGG, all retractable; case-insensitive) over
// arguments of argTypes, with Flink's result type (see ResultType; nil
// takes it from there). distinct aggregates over distinct argument values
// per group; retract makes it accept OpRetract (MIN and MAX then keep a
// per-group multiset of values). Unsupported combinations give an error
// wrapping ErrNotSupported.
func NewStepper(name string, argTypes []arrow.DataType, resultType arrow.DataType, distinct, retract bool) (Stepper, error) {
	return newStepper(strings.ToUpper(name), nil, argTypes, resultType, distinct, retract)
}

// NewStepperOf is NewStepper for the aggregate definition def (a
// logical.AggCall's Def), without a lookup by name.
func NewStepperOf(def *function.Definition, argTypes []arrow.DataType, resultType arrow.DataType, distinct, retract bool) (Stepper, error) {
	return newStepper(execName(def, argTypes), def, argTypes, resultType, distinct, retract)
}

func newStepper(name string, def *function.Definition, argTypes []arrow.DataType, resultType arrow.DataType, distinct, retract bool) (Stepper, error) {
	want, err := flinkResultType(name, def, argTypes)
	if err != nil {
		return nil, err
	}
	if resultType != nil && !arrow.TypeEqual(resultType, want) {
		return nil, fmt.Errorf("agg: %s(%s) returning %s (Flink returns %s): %w",
			name, typeList(argTypes), resultType, want, ErrNotSupported)
	}
	var s Stepper
	switch name {
	case FuncCountStar, FuncCount:
		if distinct && len(argTypes) == 0 {
			return nil, fmt.Errorf("agg: COUNT(DISTINCT *): %w", ErrNotSupported)
		}
		s = &countStep{}
	case FuncSum:
		s, err = newSumStep(argTypes[0], want, false)
	case FuncAvg:
		s, err = newSumStep(argTypes[0], want, true)
	case FuncMin, FuncMax:
		s, err = newMinMaxStep(argTypes[0], name == FuncMax, retract)
	case FuncFirstValue, FuncLastValue: // first_last.go
		if distinct {
			return nil, fmt.Errorf("agg: %s(DISTINCT …): %w", name, ErrNotSupported)
		}
		return newFirstLast(argTypes[0], name == FuncLastValue, retract)
	case FuncListAgg: // listagg.go
		s, err = newListAgg(argTypes)
	case FuncPercentile: // percentile.go
		s, err = newPercentile(argTypes)
	case FuncArrayAgg, FuncJSONArrayAgg, FuncJSONObjectAgg, FuncJSONArrayAggNullOnNull, FuncJSONObjectAggAbsentOnNull: // collect.go
		s, err = newCollectAgg(name, argTypes)
	case FuncStddevPop, FuncStddevSamp, FuncStddev, FuncVarPop, FuncVarSamp, FuncVariance: // stddev.go
		s, err = newStat(name, argTypes[0], want)
	default:
		err = fmt.Errorf("agg: streaming %s: %w", name, ErrNotSupported)
	}
	if err != nil {
		return nil, err
	}
	if distinct {
		return newDistinctStep(s, argTypes)
	}
	return s, nil
}

// StepOps computes the operations of one aggregate call for a batch: the
// row's base operation (from its row kind), turned into OpSkip where the
// FILTER clause is not TRUE or an argument is NULL (COUNT(*) has no
// arguments). dst is reused when large enough.
func StepOps(dst []Op, base []Op, args []arrow.Array, filter *array.Boolean) []Op {
	n := len(base)
	if cap(dst) < n {
		dst = make([]Op, n)
	}
	dst = dst[:n]
	copy(dst, base)
	if filter != nil {
		for i := range dst {
			if filter.IsNull(i) || !filter.Value(i) {
				dst[i] = OpSkip
			}
		}
	}
	for _, a := range args {
		if a.NullN() == 0 {
			continue
		}
		for i := range dst {
			if a.IsNull(i) {
				dst[i] = OpSkip
			}
		}
	}
	return dst
}

// countStep is COUNT and COUNT(*): NULL arguments are already OpSkip.
type countStep struct {
	counts []int64
	out    []int64
}

func (c *countStep) Resize(n int)     { c.counts = grow(c.counts, n) }
func (c *countStep) Clear(g uint32)   { c.counts[g] = 0 }
func (c *countStep) SizeBytes() int64 { return int64(cap(c.counts)+cap(c.out)) * 8 }

func (c *countStep) Step(mem memory.Allocator, ids []uint32, ops []Op, _ []arrow.Array, changed []bool) (arrow.Array, error) {
	out := grow(c.out[:0], 2*len(ids))
	c.out = out
	for i, g := range ids {
		out[2*i] = c.counts[g]
		switch ops[i] {
		case OpAdd:
			c.counts[g]++
			changed[i] = true
		case OpRetract:
			c.counts[g]--
			changed[i] = true
		}
		out[2*i+1] = c.counts[g]
	}
	return newFixedArray(mem, arrow.PrimitiveTypes.Int64, out, nil), nil
}
