package agg

import (
	"fmt"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Accumulator holds the state of one aggregate call (say SUM(x) FILTER
// (WHERE p)) for every group, as flat per-group vectors indexed by group
// id, and updates it a batch at a time.
//
// Calling protocol, from one goroutine: Resize whenever the group table
// grew (before the Update that uses the new ids), Update once per input
// batch, Evaluate whenever results are wanted (at the end of a bounded
// input, or at every flush of a streaming aggregate); Evaluate does not
// change the state, so Update may go on after it.
//
// Extensions are separate interfaces found by type assertion, so that this
// core stays small: Merger exports per-group partial state as Arrow arrays
// on the local side of a two-phase aggregation and merges it on the global
// side. Retraction of -U/-D changelog rows is not part of Accumulator; it
// belongs to a separate streaming interface.
type Accumulator interface {
	// Resize makes room for groups 0..nGroups-1. New groups start empty
	// (COUNT 0, SUM/AVG/MIN/MAX NULL). nGroups never shrinks.
	Resize(nGroups int)
	// Update folds rows into their groups: row i goes to group
	// groupIDs[i] (every id < the last Resize), its arguments are
	// args[k].Value(i), each at least len(groupIDs) long. filter is the
	// FILTER (WHERE …) clause evaluated per row and may be nil; rows where
	// it is false or NULL are skipped. Rows whose argument is NULL are
	// skipped as SQL aggregates do (COUNT(*) has no arguments and counts
	// every row). The accumulator does not retain args or filter.
	Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error
	// Evaluate returns the result of every group as one array of the
	// result type, of the length of the last Resize, in group-id order.
	// The caller owns the array.
	Evaluate(mem memory.Allocator) (arrow.Array, error)
	// SizeBytes estimates the memory the state holds.
	SizeBytes() int64
}

// Merger is the capability for two-phase (local/global) aggregation: the
// local side exports per-group partial state, an Exchange moves it, and
// the global side merges it into its own groups. Every accumulator made by
// NewAccumulator without DISTINCT implements it; a DISTINCT aggregate has
// a Merger view through MergerOf (its state: the set of values, then the
// inner aggregate's state).
type Merger interface {
	Accumulator
	// StateTypes returns the types of the arrays State returns.
	StateTypes() []arrow.DataType
	// State returns the partial state of every group (for AVG: sum and
	// count), one array per StateTypes entry, of the length of the last
	// Resize, in group-id order. It does not change the state. The caller
	// owns the arrays.
	State(mem memory.Allocator) ([]arrow.Array, error)
	// Merge folds partial states (arrays as State returns them) into the
	// groups: row i goes into group groupIDs[i], which must be below the
	// last Resize. Merging every local state gives the same Evaluate as
	// updating one accumulator with all rows (up to float rounding order).
	Merge(groupIDs []uint32, state []arrow.Array) error
}

// Function names understood by NewAccumulator.
const (
	FuncCount     = "COUNT"
	FuncCountStar = "COUNT_STAR"
	FuncSum       = "SUM"
	FuncAvg       = "AVG"
	FuncMin       = "MIN"
	FuncMax       = "MAX"
)

// ResultType returns Flink's result type of the aggregate function name
// over arguments of argTypes, or an error wrapping ErrNotSupported for a
// combination the accumulators do not handle.
//
// The type is not computed here: it is the aggregate definition's
// (function.Definition.AggregateResultType, the one the validator typed
// the call with), over the Flink types of argTypes, mapped to Arrow. Only
// Arrow types no Flink type maps to (unsigned integers, large strings,
// other time units), which MIN, MAX, FIRST_VALUE, LAST_VALUE and COUNT
// accept, keep their own type (BIGINT for COUNT).
func ResultType(name string, argTypes []arrow.DataType) (arrow.DataType, error) {
	return flinkResultType(strings.ToUpper(name), nil, argTypes)
}

// ResultTypeOf is ResultType for the aggregate definition def (a
// logical.AggCall's Def), without a lookup by name.
func ResultTypeOf(def *function.Definition, argTypes []arrow.DataType) (arrow.DataType, error) {
	return flinkResultType(execName(def, argTypes), def, argTypes)
}

// execName is the name the accumulators know def by: COUNT without
// arguments is COUNT_STAR.
func execName(def *function.Definition, argTypes []arrow.DataType) string {
	if def.Name == FuncCount && len(argTypes) == 0 {
		return FuncCountStar
	}
	return strings.ToUpper(def.Name)
}

// flinkResultType is ResultType of the upper-case name; def is its definition,
// or nil to look the built-in up by name.
func flinkResultType(name string, def *function.Definition, argTypes []arrow.DataType) (arrow.DataType, error) {
	if err := supported(name, argTypes); err != nil {
		return nil, err
	}
	fname := name
	if name == FuncCountStar {
		fname = FuncCount
	}
	if def == nil {
		var ok bool
		if def, ok = function.BuiltinAggregate(fname); !ok {
			return nil, fmt.Errorf("agg: aggregate function %s: %w", name, ErrNotSupported)
		}
	}
	ft := make([]types.Type, len(argTypes))
	for i, t := range argTypes {
		f, err := types.FromArrow(t, true)
		if err != nil {
			// an executor-only Arrow type (supported checked the function)
			if fname == FuncCount {
				return arrow.PrimitiveTypes.Int64, nil
			}
			return t, nil
		}
		ft[i] = f
	}
	t, err := def.AggregateResultType(ft, true)
	if err != nil {
		return nil, fmt.Errorf("agg: %s(%s): %v: %w", name, typeList(argTypes), err, ErrNotSupported)
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return nil, fmt.Errorf("agg: %s(%s) returning %s: %w", name, typeList(argTypes), t, ErrNotSupported)
	}
	return at, nil
}

// supported checks that the accumulators handle the aggregate name over
// argTypes (the argument count and the Arrow types each one accepts).
func supported(name string, argTypes []arrow.DataType) error {
	notSupported := func() error {
		if len(argTypes) == 1 && name != FuncListAgg {
			return fmt.Errorf("agg: %s of %s: %w", name, argTypes[0], ErrNotSupported)
		}
		return fmt.Errorf("agg: %s(%s): %w", name, typeList(argTypes), ErrNotSupported)
	}
	one := func() error {
		if len(argTypes) != 1 {
			return fmt.Errorf("agg: %s takes one argument, got %d", name, len(argTypes))
		}
		return nil
	}
	switch name {
	case FuncCountStar:
		if len(argTypes) != 0 {
			return fmt.Errorf("agg: COUNT(*) takes no arguments, got %d", len(argTypes))
		}
		return nil
	case FuncCount:
		for _, t := range argTypes {
			if _, err := codecFor(t); err != nil {
				return fmt.Errorf("agg: COUNT of %s: %w", t, ErrNotSupported)
			}
		}
		return nil
	case FuncSum, FuncAvg:
		if err := one(); err != nil {
			return err
		}
		switch argTypes[0].ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
			return nil
		}
		return notSupported()
	case FuncMin, FuncMax:
		if err := one(); err != nil {
			return err
		}
		switch argTypes[0].ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
			arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
			arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.BOOL,
			arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY,
			arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
			arrow.TIMESTAMP, arrow.DURATION:
			return nil
		}
		return notSupported()
	case FuncStddevPop, FuncStddevSamp, FuncStddev, FuncVarPop, FuncVarSamp, FuncVariance: // stddev.go
		if err := one(); err != nil {
			return err
		}
		if !statSupported(argTypes[0]) {
			return notSupported()
		}
		return nil
	case FuncListAgg: // listagg.go
		if !listAggTypesOK(argTypes) {
			return notSupported()
		}
		return nil
	case FuncPercentile: // percentile.go
		return percentileSupported(argTypes)
	case FuncArrayAgg, FuncJSONArrayAgg, FuncJSONObjectAgg, FuncJSONArrayAggNullOnNull, FuncJSONObjectAggAbsentOnNull: // collect.go
		return collectSupported(name, argTypes)
	case FuncFirstValue, FuncLastValue: // first_last.go
		if err := one(); err != nil {
			return err
		}
		if !firstLastSupported(argTypes[0]) {
			return notSupported()
		}
		return nil
	}
	return fmt.Errorf("agg: aggregate function %s: %w", name, ErrNotSupported)
}

// NewAccumulator returns the accumulator of the aggregate function name
// (COUNT, COUNT_STAR, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, the
// variance family of stddev.go and LISTAGG; case-insensitive) over arguments
// of argTypes. resultType must be the Flink result type (see ResultType) or
// nil to take it from there. distinct makes it an aggregate over distinct
// argument values per group (COUNT(DISTINCT x)). Combinations not handled
// give an error wrapping ErrNotSupported.
func NewAccumulator(name string, argTypes []arrow.DataType, resultType arrow.DataType, distinct bool) (Accumulator, error) {
	return newAccumulator(strings.ToUpper(name), nil, argTypes, resultType, distinct)
}

// NewAccumulatorOf is NewAccumulator for the aggregate definition def (a
// logical.AggCall's Def), without a lookup by name.
func NewAccumulatorOf(def *function.Definition, argTypes []arrow.DataType, resultType arrow.DataType, distinct bool) (Accumulator, error) {
	return newAccumulator(execName(def, argTypes), def, argTypes, resultType, distinct)
}

func newAccumulator(name string, def *function.Definition, argTypes []arrow.DataType, resultType arrow.DataType, distinct bool) (Accumulator, error) {
	want, err := flinkResultType(name, def, argTypes)
	if err != nil {
		return nil, err
	}
	if resultType != nil && !arrow.TypeEqual(resultType, want) {
		return nil, fmt.Errorf("agg: %s(%s) returning %s (Flink returns %s): %w",
			name, typeList(argTypes), resultType, want, ErrNotSupported)
	}
	var acc Accumulator
	switch name {
	case FuncCountStar:
		if distinct {
			return nil, fmt.Errorf("agg: COUNT(DISTINCT *): %w", ErrNotSupported)
		}
		acc = &countAcc{star: true}
	case FuncCount:
		acc = &countAcc{star: len(argTypes) == 0}
	case FuncSum:
		acc, err = newSum(argTypes[0])
	case FuncAvg:
		acc, err = newAvg(argTypes[0], want)
	case FuncMin, FuncMax:
		acc, err = newMinMax(argTypes[0], name == FuncMax)
	case FuncFirstValue, FuncLastValue:
		if distinct {
			return nil, fmt.Errorf("agg: %s(DISTINCT …): %w", name, ErrNotSupported)
		}
		return newFirstLast(argTypes[0], name == FuncLastValue, false)
	case FuncListAgg:
		acc, err = newListAgg(argTypes)
	case FuncPercentile: // percentile.go
		acc, err = newPercentile(argTypes)
	case FuncArrayAgg, FuncJSONArrayAgg, FuncJSONObjectAgg, FuncJSONArrayAggNullOnNull, FuncJSONObjectAggAbsentOnNull: // collect.go
		acc, err = newCollectAgg(name, argTypes)
	default:
		if isStatFunc(name) {
			acc, err = newStat(name, argTypes[0], want)
		}
	}
	if err != nil {
		return nil, err
	}
	if name != FuncCountStar {
		acc.(interface{ setSpec([]arrow.DataType) }).setSpec(argTypes)
	}
	if distinct {
		return newDistinct(acc, argTypes)
	}
	return acc, nil
}

func typeList(ts []arrow.DataType) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// spec is embedded in every accumulator: the argument types it was made
// for, checked on every Update (reading a buffer as the wrong type would
// read out of bounds).
type spec struct {
	argTypes []arrow.DataType
}

func (s *spec) setSpec(argTypes []arrow.DataType) { s.argTypes = argTypes }

// check validates the shape of an Update call.
func (s *spec) check(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	return checkArgs(groupIDs, args, s.argTypes, filter)
}

// checkArgs validates the shape of an Update call: the argument count and
// types, and that arguments and filter cover every row.
func checkArgs(groupIDs []uint32, args []arrow.Array, want []arrow.DataType, filter *array.Boolean) error {
	if len(args) != len(want) {
		return fmt.Errorf("agg: want %d arguments, got %d", len(want), len(args))
	}
	for i, a := range args {
		if !arrow.TypeEqual(a.DataType(), want[i]) {
			return fmt.Errorf("agg: argument %d has type %s, want %s", i, a.DataType(), want[i])
		}
		if a.Len() < len(groupIDs) {
			return fmt.Errorf("agg: argument of %d rows for %d group ids", a.Len(), len(groupIDs))
		}
	}
	if filter != nil && filter.Len() < len(groupIDs) {
		return fmt.Errorf("agg: filter of %d rows for %d group ids", filter.Len(), len(groupIDs))
	}
	return nil
}

// rowMask computes which of n rows take part: the filter is true and every
// argument is non-NULL. It returns nil when every row does (the fast path).
// The mask lives in *scratch, reused across calls.
func rowMask(scratch *[]bool, n int, args []arrow.Array, filter *array.Boolean) []bool {
	needed := filter != nil
	for _, a := range args {
		if a.NullN() > 0 {
			needed = true
		}
	}
	if !needed {
		return nil
	}
	if cap(*scratch) < n {
		*scratch = make([]bool, n)
	}
	m := (*scratch)[:n]
	for i := range m {
		m[i] = true
	}
	if filter != nil {
		bits, off := validBits(filter)
		for i := range m {
			m[i] = isValid(bits, off, i) && filter.Value(i)
		}
	}
	for _, a := range args {
		bits, off := validBits(a)
		if bits == nil {
			continue
		}
		for i := range m {
			if !isValid(bits, off, i) {
				m[i] = false
			}
		}
	}
	return m
}

// grow extends s to n elements, zeroing the new ones, amortised.
func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	ns := make([]T, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}
