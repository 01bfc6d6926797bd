// Package rules holds the planner's named rewrite rules over logical plans
// and the driver that runs them to a fixed point.
//
// Every rule is pure: it never mutates its input plan, and it reports
// honestly whether it changed anything. Each rule has a stable name (in
// Calcite's and Flink's spelling) by which it can be switched off, for
// example to run the SQL tests once with all rules on and once with all
// rules off. The rules, in the order the driver runs them:
//
//	ReduceExpressionsRule         constant folding and boolean simplification
//	PruneEmptyRule                propagate empty VALUES through the plan
//	FilterMergeRule               Filter(Filter(x)) → Filter(x)
//	OuterJoinSimplifyRule         outer → inner join under a NULL-rejecting filter
//	FilterProjectTransposeRule    push filters below projections
//	FilterIntoJoinRule            push filters into and through joins
//	JoinConditionPushRule         push one-sided join conjuncts into inputs
//	FilterAggregateTransposeRule  push group-key filters below aggregates
//	FilterSetOpTransposeRule      push filters into UNION/INTERSECT/EXCEPT inputs
//	FilterSortTransposeRule       push filters below sorts
//	FilterCorrelateRule           push left-side filters below LATERAL TABLE
//	PushFilterIntoTableSourceScanRule  offer filters to a source that takes them
//	ProjectMergeRule              Project(Project(x)) → Project(x)
//	ProjectRemoveRule             drop identity projections
//	PruneColumnsRule              read and carry only the columns used above
//	PushLimitIntoTableSourceScanRule   tell a source that takes a limit how many rows
//
// With Settings.JoinReorder ('table.optimizer.join-reorder-enabled'),
// JoinReorderRule then runs once over the fixed point, and the rules above
// run again to a fixed point over its result.
package rules

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/planner/logical"
)

// Rule is one named rewrite of a logical plan.
type Rule interface {
	// Name is the rule's stable name, used to disable it and in traces.
	Name() string
	// Apply rewrites the whole plan rooted at n. It never modifies n; it
	// returns the rewritten plan and whether anything changed. A rule that
	// does not apply returns (n, false, nil). The output schema of the
	// root (names and types) is the same as n's.
	Apply(n logical.Node) (logical.Node, bool, error)
}

// MaxPasses caps the number of passes over the rule list the driver makes
// before it stops looking for a fixed point.
const MaxPasses = 32

// Env is what rules need to know about the session: the function registry
// (for determinism and constant folding) and the evaluation context.
type Env struct {
	Functions *function.Registry
	Eval      *function.EvalContext
}

// All returns every rule in the order the driver runs them.
func All(reg *function.Registry, ctx *function.EvalContext) []Rule {
	env := &Env{Functions: reg, Eval: ctx}
	return []Rule{
		&ReduceExpressions{env: env},
		&PruneEmpty{},
		&FilterMerge{},
		&OuterJoinSimplify{env: env},
		&FilterProjectTranspose{env: env},
		&FilterIntoJoin{env: env},
		&JoinConditionPush{env: env},
		&FilterAggregateTranspose{env: env},
		&FilterSetOpTranspose{env: env},
		&FilterSortTranspose{},
		&FilterCorrelate{env: env},
		&PushFilterIntoTableSourceScan{},
		&ProjectMerge{env: env},
		&ProjectRemove{},
		&PruneColumns{},
		&PushLimitIntoTableSourceScan{},
	}
}

// Names returns the names of all rules in the order the driver runs them
// (JoinReorderRule, which runs only when enabled, last).
func Names() []string {
	rs := All(nil, nil)
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name()
	}
	return append(out, (&JoinReorder{}).Name())
}

// Settings are the session options that switch rules on.
type Settings struct {
	// JoinReorder is 'table.optimizer.join-reorder-enabled' (Flink's
	// default: false).
	JoinReorder bool
}

// Step is one entry of an optimization trace: the plan right after Rule
// changed it.
type Step struct {
	Rule string
	Plan logical.Node
}

// Optimize runs every rule not named in disabled over n, pass after pass,
// until a whole pass changes nothing (or MaxPasses passes ran). An unknown
// name in disabled is an error, so a typo does not silently keep a rule on.
func Optimize(n logical.Node, reg *function.Registry, ctx *function.EvalContext, disabled map[string]bool) (logical.Node, error) {
	out, _, err := run(n, reg, ctx, disabled, Settings{}, false)
	return out, err
}

// OptimizeWith is Optimize with the rules that settings switch on.
func OptimizeWith(n logical.Node, reg *function.Registry, ctx *function.EvalContext, disabled map[string]bool, settings Settings) (logical.Node, error) {
	out, _, err := run(n, reg, ctx, disabled, settings, false)
	return out, err
}

// OptimizeTrace is Optimize that also returns the plan after each rule
// application that changed it, in order (for EXPLAIN VERBOSE).
func OptimizeTrace(n logical.Node, reg *function.Registry, ctx *function.EvalContext, disabled map[string]bool) (logical.Node, []Step, error) {
	return run(n, reg, ctx, disabled, Settings{}, true)
}

func run(n logical.Node, reg *function.Registry, ctx *function.EvalContext, disabled map[string]bool, settings Settings, trace bool) (logical.Node, []Step, error) {
	all := All(reg, ctx)
	known := map[string]bool{}
	for _, name := range Names() {
		known[name] = true
	}
	for name := range disabled {
		if !known[name] {
			return nil, nil, fmt.Errorf("unknown optimizer rule %q (the rules are %s)", name, strings.Join(Names(), ", "))
		}
	}
	var active []Rule
	for _, r := range all {
		if !disabled[r.Name()] {
			active = append(active, r)
		}
	}
	n, steps, err := fixedPoint(n, active, trace)
	if err != nil || !settings.JoinReorder || disabled[(&JoinReorder{}).Name()] {
		return n, steps, err
	}
	jr := &JoinReorder{env: &Env{Functions: reg, Eval: ctx}}
	next, changed, err := jr.Apply(n)
	if err != nil {
		return nil, nil, fmt.Errorf("optimizer rule %s: %w", jr.Name(), err)
	}
	if !changed {
		return n, steps, nil
	}
	if trace {
		steps = append(steps, Step{Rule: jr.Name(), Plan: next})
	}
	next, more, err := fixedPoint(next, active, trace)
	return next, append(steps, more...), err
}

// fixedPoint applies the rules pass after pass until a pass changes
// nothing (or MaxPasses passes ran).
func fixedPoint(n logical.Node, active []Rule, trace bool) (logical.Node, []Step, error) {
	var steps []Step
	for pass := 0; pass < MaxPasses; pass++ {
		changedAny := false
		for _, r := range active {
			next, changed, err := r.Apply(n)
			if err != nil {
				return nil, nil, fmt.Errorf("optimizer rule %s: %w", r.Name(), err)
			}
			if !changed {
				continue
			}
			changedAny = true
			n = next
			if trace {
				steps = append(steps, Step{Rule: r.Name(), Plan: n})
			}
		}
		if !changedAny {
			break
		}
	}
	return n, steps, nil
}

// transformUp rebuilds the plan bottom-up: the children first, then fn on
// the node with its new children. It reports whether anything changed and
// returns the original node where nothing did.
func transformUp(n logical.Node, fn func(logical.Node) (logical.Node, bool, error)) (logical.Node, bool, error) {
	ch := n.Children()
	changed := false
	if len(ch) > 0 {
		nc := make([]logical.Node, len(ch))
		for i, c := range ch {
			x, ok, err := transformUp(c, fn)
			if err != nil {
				return nil, false, err
			}
			nc[i] = x
			changed = changed || ok
		}
		if changed {
			n = n.WithChildren(nc)
		}
	}
	out, ok, err := fn(n)
	if err != nil {
		return nil, false, err
	}
	return out, changed || ok, nil
}
