package ops

import (
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// SetFunctions gives the streaming aggregate the evaluation context
// passed to user-defined (script) aggregate functions. Call before Open. The mini-batch form (MiniBatchGroupAggregate) inherits it.
func (h *GroupAggregate) SetFunctions(ectx *function.EvalContext) {
	h.scripts = scriptFuncs{ectx: ectx}
}

// scriptStepper returns the stepper of a call of a script aggregate; ok is
// false for a built-in aggregate.
func (h *GroupAggregate) scriptStepper(c logical.AggCall) (agg.Stepper, bool, error) {
	if !c.User {
		return nil, false, nil
	}
	argTypes := make([]types.Type, len(c.Args))
	for j, a := range c.Args {
		if a >= 0 && a < len(h.in) {
			argTypes[j] = h.in[a].Type
		}
	}
	return NewScriptStepper(h.scripts.ectx, c, argTypes, h.opts.Retract)
}

// closeSteppers returns the interpreters held by script steppers.
func (h *GroupAggregate) closeSteppers() {
	for _, s := range h.steps {
		if c, ok := s.step.(interface{ Close() }); ok {
			c.Close()
		}
	}
}

// SetFunctions gives the window aggregate the evaluation context of
// script aggregate functions (each window's HashAggregate runs them).
// Call before Open.
func (w *WindowAggregate) SetFunctions(ectx *function.EvalContext) {
	w.scripts = scriptFuncs{ectx: ectx}
}

// SetFunctions gives the session window aggregate the evaluation context
// of script aggregate functions. Call before Open.
func (s *SessionWindowAggregate) SetFunctions(ectx *function.EvalContext) {
	s.scripts = scriptFuncs{ectx: ectx}
}
