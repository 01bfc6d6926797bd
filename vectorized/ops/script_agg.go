package ops

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Script aggregate functions (udf/python, udf/js: CREATE FUNCTION …
// LANGUAGE PYTHON AS $$ class f: … $$) run in the batch HashAggregate
// through scriptAccumulator, an agg.Accumulator over udf.AggregateImpl:
// one interpreter (udf.AggInstance) per aggregate call and operator, one
// script accumulator per group. Unlike the built-in aggregates, rows with
// NULL arguments are passed to accumulate (as Flink does for user-defined
// aggregates); the script decides what a NULL means.

// scriptFuncs is what the HashAggregate needs to run script aggregates
// (calls with AggCall.User set, whose AggCall.Def is the definition the
// validator resolved): the evaluation context handed to the scripts.
type scriptFuncs struct {
	ectx *function.EvalContext
	// shared, when set, lends every accumulator of a function the same
	// interpreter (an operator that makes accumulators per window); the
	// operator closes them.
	shared *sharedInstances
}

// sharedInstances are an operator's interpreters, one per script
// aggregate function.
type sharedInstances struct{ byName map[string]udf.AggInstance }

func newSharedInstances() *sharedInstances {
	return &sharedInstances{byName: map[string]udf.AggInstance{}}
}

// close returns the interpreters.
func (s *sharedInstances) close() {
	if s == nil {
		return
	}
	for k, inst := range s.byName {
		inst.Close()
		delete(s.byName, k)
	}
}

// SetFunctions gives the aggregate the evaluation context passed to
// user-defined (script) aggregate functions. Call before Open.
func (h *HashAggregate) SetFunctions(ectx *function.EvalContext) {
	h.scripts = scriptFuncs{ectx: ectx}
}

// scriptAccumulator returns the accumulator of a call of a script
// aggregate function; ok is false when c names no script aggregate (a
// built-in).
func (h *HashAggregate) scriptAccumulator(c logical.AggCall, result arrow.DataType) (acc agg.Accumulator, ok bool, err error) {
	sa, ok, err := h.scripts.accumulator(c, h.in)
	if !ok || err != nil {
		return nil, ok, err
	}
	if dt, err := types.ArrowType(c.T); err != nil || !arrow.TypeEqual(dt, result) {
		sa.close()
		return nil, true, fmt.Errorf("internal: script aggregate %s of type %s for an output column of %s", c.Name, c.T, result)
	}
	return sa, true, nil
}

// accumulator returns the accumulator of a call of a script aggregate
// function over input in, with its own interpreter (close it); ok is
// false when c is not a user-defined aggregate (a built-in).
func (sf scriptFuncs) accumulator(c logical.AggCall, in types.Schema) (*scriptAccumulator, bool, error) {
	def, ok, err := userAggregate(c)
	if !ok || err != nil {
		return nil, ok, err
	}
	argTypes := make([]types.Type, len(c.Args))
	for j, a := range c.Args {
		if a < 0 || a >= len(in) {
			return nil, true, fmt.Errorf("internal: aggregate input column $%d out of range", a)
		}
		argTypes[j] = in[a].Type
	}
	def, err = udf.Specialize(def, argTypes)
	if err != nil {
		return nil, true, err
	}
	af, found := udf.AggregateImpl(def)
	if !found {
		return nil, true, fmt.Errorf("not supported yet: aggregate function '%s' without a script implementation", c.Name)
	}
	inst, borrowed := udf.AggInstance(nil), false
	if sf.shared != nil {
		inst, borrowed = sf.shared.byName[c.Name], true
	}
	if inst == nil {
		var err error
		if inst, err = af.NewInstance(sf.ectx); err != nil {
			return nil, true, err
		}
		if sf.shared != nil {
			sf.shared.byName[c.Name] = inst
		}
	}
	sa := &scriptAccumulator{name: c.Name, inst: inst, borrowed: borrowed, argTypes: argTypes, result: c.T, canMerge: af.CanMerge()}
	if c.Distinct {
		sa.distinct = &distinctSeen{}
	}
	return sa, true, nil
}

// closeScriptAccumulators returns the interpreters of script aggregates.
func (h *HashAggregate) closeScriptAccumulators() {
	for _, a := range h.accs {
		if s, ok := a.acc.(*scriptAccumulator); ok {
			s.close()
		}
	}
}

// scriptAccumulator is an agg.Accumulator over a script aggregate.
type scriptAccumulator struct {
	// name is the function's registry key (for errors).
	name string
	// canMerge: the script defines merge (needed to spill).
	canMerge bool
	inst     udf.AggInstance
	// borrowed: inst is an operator's shared interpreter, not closed here
	borrowed bool
	argTypes []types.Type
	result   types.Type
	// accs holds one accumulator per group; nil until the group's first
	// row.
	accs []udf.Acc
	vals []any
	// distinct, for a DISTINCT call, holds the argument rows each group
	// has seen (script_agg_distinct.go).
	distinct *distinctSeen
	// evals caches Evaluate: get_value of group g, current where
	// evalOK[g] (a streaming global aggregate evaluates every group per
	// bundle, and only the bundle's groups changed).
	evals  []any
	evalOK []bool
}

var _ agg.Accumulator = (*scriptAccumulator)(nil)

// Resize implements agg.Accumulator.
func (s *scriptAccumulator) Resize(n int) {
	if n > len(s.accs) {
		s.accs = append(s.accs, make([]udf.Acc, n-len(s.accs))...)
	}
	if s.distinct != nil {
		s.distinct.resize(n)
	}
}

// group returns group g's accumulator, created on first use, for a change:
// its cached result is dropped.
func (s *scriptAccumulator) group(g uint32) (udf.Acc, error) {
	if int(g) >= len(s.accs) {
		return nil, fmt.Errorf("internal: group %d of %d", g, len(s.accs))
	}
	if int(g) < len(s.evalOK) {
		s.evalOK[g] = false
	}
	if s.accs[g] == nil {
		a, err := s.inst.CreateAccumulator()
		if err != nil {
			return nil, err
		}
		s.accs[g] = a
	}
	return s.accs[g], nil
}

// Update implements agg.Accumulator: accumulate is called once per row
// (NULL arguments included).
func (s *scriptAccumulator) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if len(args) != len(s.argTypes) {
		return fmt.Errorf("internal: script aggregate with %d arguments, want %d", len(args), len(s.argTypes))
	}
	if cap(s.vals) < len(args) {
		s.vals = make([]any, len(args))
	}
	vals := s.vals[:len(args)]
	for i, g := range groupIDs {
		if filter != nil && (filter.IsNull(i) || !filter.Value(i)) {
			continue
		}
		for k, a := range args {
			vals[k] = types.GetValue(a, i, s.argTypes[k])
		}
		if s.distinct != nil && !s.distinct.first(g, vals) {
			continue
		}
		acc, err := s.group(g)
		if err != nil {
			return err
		}
		if err := s.inst.Accumulate(acc, vals); err != nil {
			return err
		}
	}
	return nil
}

// Evaluate implements agg.Accumulator: get_value of every group (of a
// fresh accumulator for a group without rows, as the global aggregate of
// an empty input).
// Only the groups changed since the last Evaluate call get_value again.
func (s *scriptAccumulator) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	if n := len(s.accs); len(s.evals) < n {
		s.evals = append(s.evals, make([]any, n-len(s.evals))...)
		s.evalOK = append(s.evalOK, make([]bool, n-len(s.evalOK))...)
	}
	for g := range s.accs {
		if s.evalOK[g] {
			continue
		}
		acc, err := s.group(uint32(g))
		if err != nil {
			return nil, err
		}
		v, err := s.inst.GetValue(acc)
		if err != nil {
			return nil, err
		}
		s.evals[g], s.evalOK[g] = v, true
	}
	return types.BuildArray(mem, s.result, s.evals[:len(s.accs)])
}

// resetGroups drops every group, keeping the interpreter (a local
// aggregate's next bundle).
func (s *scriptAccumulator) resetGroups() {
	clear(s.accs)
	s.accs = s.accs[:0]
	clear(s.evals)
	s.evals, s.evalOK = s.evals[:0], s.evalOK[:0]
	if s.distinct != nil {
		s.distinct = &distinctSeen{}
	}
}

// SizeBytes implements agg.Accumulator with a rough estimate (script
// accumulators live in the interpreter).
func (s *scriptAccumulator) SizeBytes() int64 {
	n := int64(len(s.accs)) * 64
	if s.distinct != nil {
		n += s.distinct.bytes + int64(len(s.distinct.seen))*8
	}
	return n
}

func (s *scriptAccumulator) close() {
	if s.inst != nil && !s.borrowed {
		s.inst.Close()
	}
	s.inst = nil
	s.accs, s.evals, s.evalOK = nil, nil, nil
	s.distinct = nil
}

// userAggregate returns the definition of c when it is a call of a
// user-defined aggregate function (the one the validator resolved, not
// looked up again by name); ok is false for a built-in.
func userAggregate(c logical.AggCall) (def *function.Definition, ok bool, err error) {
	if !c.User {
		return nil, false, nil
	}
	if c.Def == nil || c.Def.Kind != function.Aggregate {
		return nil, true, fmt.Errorf("internal: user-defined aggregate %s without an aggregate definition", c.Name)
	}
	return c.Def, true, nil
}

// NewScriptStepper returns the streaming (changelog) form of a call of a
// script aggregate function, for the streaming GroupAggregate: ok is false
// when c is not a user-defined aggregate (a built-in: use agg.NewStepper).
// argTypes are the types of the call's argument columns. retract asks for
// OpRetract support, which needs the script's retract method. The stepper
// holds an interpreter: call its Close method (interface{ Close() }) when
// the operator closes.
func NewScriptStepper(ectx *function.EvalContext, c logical.AggCall, argTypes []types.Type, retract bool) (s agg.Stepper, ok bool, err error) {
	def, ok, err := userAggregate(c)
	if !ok || err != nil {
		return nil, ok, err
	}
	def, err = udf.Specialize(def, argTypes)
	if err != nil {
		return nil, true, err
	}
	af, found := udf.AggregateImpl(def)
	if !found {
		return nil, true, fmt.Errorf("not supported yet: aggregate function '%s' without a script implementation", c.Name)
	}
	if retract && !af.CanRetract() {
		return nil, true, fmt.Errorf("not supported yet: the aggregate function '%s' over an updating input: its script defines no retract method", c.Name)
	}
	if len(argTypes) != len(c.Args) {
		return nil, true, fmt.Errorf("internal: script aggregate %s with %d argument types for %d arguments", c.Name, len(argTypes), len(c.Args))
	}
	inst, err := af.NewInstance(ectx)
	if err != nil {
		return nil, true, err
	}
	st := &scriptStepper{acc: scriptAccumulator{name: c.Name, inst: inst, argTypes: argTypes, result: c.T}}
	if c.Distinct {
		st.counts = &distinctCounts{}
	}
	return st, true, nil
}

// scriptStepper is an agg.Stepper over a script aggregate. It caches every
// group's current result so that each row costs one accumulate (or
// retract) and one get_value call.
type scriptStepper struct {
	acc     scriptAccumulator
	cur     []any
	has     []bool
	empty   any
	emptyOK bool
	// counts, for a DISTINCT call, counts the copies of each argument row
	// per group (script_agg_distinct.go).
	counts *distinctCounts
}

var _ agg.Stepper = (*scriptStepper)(nil)

// Resize implements agg.Stepper.
func (s *scriptStepper) Resize(n int) {
	s.acc.Resize(n)
	if s.counts != nil {
		s.counts.resize(n)
	}
	if n > len(s.cur) {
		s.cur = append(s.cur, make([]any, n-len(s.cur))...)
		s.has = append(s.has, make([]bool, n-len(s.has))...)
	}
}

// emptyValue is get_value of a fresh accumulator.
func (s *scriptStepper) emptyValue() (any, error) {
	if !s.emptyOK {
		a, err := s.acc.inst.CreateAccumulator()
		if err != nil {
			return nil, err
		}
		v, err := s.acc.inst.GetValue(a)
		if err != nil {
			return nil, err
		}
		s.empty, s.emptyOK = v, true
	}
	return s.empty, nil
}

// Step implements agg.Stepper.
func (s *scriptStepper) Step(mem memory.Allocator, ids []uint32, ops []agg.Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != len(s.acc.argTypes) {
		return nil, fmt.Errorf("internal: script aggregate with %d arguments, want %d", len(args), len(s.acc.argTypes))
	}
	out := make([]any, 2*len(ids))
	vals := make([]any, len(args))
	for i, g := range ids {
		if int(g) >= len(s.cur) {
			return nil, fmt.Errorf("internal: group %d of %d", g, len(s.cur))
		}
		before := s.cur[g]
		if !s.has[g] {
			v, err := s.emptyValue()
			if err != nil {
				return nil, err
			}
			before = v
		}
		after := before
		if ops[i] != agg.OpSkip {
			acc, err := s.acc.group(g)
			if err != nil {
				return nil, err
			}
			for k, a := range args {
				vals[k] = types.GetValue(a, i, s.acc.argTypes[k])
			}
			if s.counts != nil {
				var passes bool
				if ops[i] == agg.OpRetract {
					passes = s.counts.remove(g, vals)
				} else {
					passes = s.counts.add(g, vals)
				}
				if !passes {
					// another copy of the values stays in the group (or
					// none was there): the aggregate does not change
					out[2*i], out[2*i+1] = before, before
					continue
				}
			}
			if ops[i] == agg.OpRetract {
				err = s.acc.inst.Retract(acc, vals)
			} else {
				err = s.acc.inst.Accumulate(acc, vals)
			}
			if err != nil {
				return nil, err
			}
			if after, err = s.acc.inst.GetValue(acc); err != nil {
				return nil, err
			}
			s.cur[g], s.has[g] = after, true
		}
		out[2*i], out[2*i+1] = before, after
		if !reflect.DeepEqual(before, after) {
			changed[i] = true
		}
	}
	return types.BuildArray(mem, s.acc.result, out)
}

// Clear implements agg.Stepper.
func (s *scriptStepper) Clear(g uint32) {
	if int(g) < len(s.cur) {
		s.acc.accs[g] = nil
		s.cur[g], s.has[g] = nil, false
		if s.counts != nil {
			s.counts.clear(g)
		}
	}
}

// SizeBytes implements agg.Stepper.
func (s *scriptStepper) SizeBytes() int64 {
	n := s.acc.SizeBytes() + int64(len(s.cur))*16
	if s.counts != nil {
		n += s.counts.bytes + int64(len(s.counts.counts))*8
	}
	return n
}

// Close returns the interpreter.
func (s *scriptStepper) Close() { s.acc.close() }

// Spilling (batch HashAggregate over tablerun.exec.spill.memory-budget):
// a script accumulator is an agg.Merger whose state is the exported
// accumulator (see state_script.go); a group met again after a spill is
// merged through the script's merge method. A DISTINCT call, or a script
// without merge, cannot spill: scriptSpillError names it.

var _ agg.Merger = (*scriptAccumulator)(nil)

// StateTypes implements agg.Merger.
func (s *scriptAccumulator) StateTypes() []arrow.DataType { return scriptMerger{s}.StateTypes() }

// State implements agg.Merger.
func (s *scriptAccumulator) State(mem memory.Allocator) ([]arrow.Array, error) {
	st, err := scriptMerger{s}.State(mem)
	if err != nil && s.distinct == nil {
		return nil, fmt.Errorf("not supported yet: exporting the accumulator of the aggregate function '%s' (two-phase aggregation, spilling and checkpoints move it between instances; SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE' keeps it in one phase): %w", s.name, err)
	}
	return st, err
}

// Merge implements agg.Merger.
func (s *scriptAccumulator) Merge(groups []uint32, state []arrow.Array) error {
	return scriptMerger{s}.Merge(groups, state)
}

// spillError reports why the accumulator cannot spill (nil if it can).
func (s *scriptAccumulator) spillError() error {
	switch {
	case s.distinct != nil:
		return fmt.Errorf("not supported yet: spilling the DISTINCT call of the aggregate function '%s': its state exceeds 'tablerun.exec.spill.memory-budget'", s.name)
	case !s.canMerge:
		return fmt.Errorf("not supported yet: spilling the aggregate function '%s', whose script defines no merge method: its state exceeds 'tablerun.exec.spill.memory-budget'", s.name)
	}
	return nil
}

// scriptSpillError returns the error of the first script aggregate that
// cannot spill, for a HashAggregate whose state exceeds its budget (nil
// when every aggregate can spill).
func (h *HashAggregate) scriptSpillError() error {
	for _, a := range h.accs {
		if s, ok := a.acc.(*scriptAccumulator); ok {
			if err := s.spillError(); err != nil {
				return err
			}
		}
	}
	return nil
}
