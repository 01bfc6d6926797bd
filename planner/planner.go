// Package planner is the planner's entry point for the facade: it runs the
// optimizer rules over a validated logical plan, translates the result into
// a physical plan, and prints EXPLAIN output in Flink's layout.
package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/planner/rules"
)

// Options controls planning.
type Options struct {
	// Disabled names optimizer rules to skip (see rules.Names); an unknown
	// name is an error.
	Disabled map[string]bool
	// Streaming plans for execution.runtime-mode = STREAMING: see
	// physical.TranslateStream.
	Streaming bool
	// Stream tunes the streaming translation (sinks' accepted changelogs).
	Stream physical.StreamOptions
	// JoinReorder is 'table.optimizer.join-reorder-enabled'.
	JoinReorder bool
}

// AllRulesOff returns options that disable every optimizer rule (the
// "rules off" verification mode).
func AllRulesOff() Options {
	d := map[string]bool{}
	for _, n := range rules.Names() {
		d[n] = true
	}
	return Options{Disabled: d}
}

// Optimize runs the optimizer rules over n and translates the result into
// a batch physical plan, or a streaming one with opts.Streaming. It returns
// the optimized logical plan too.
func Optimize(n logical.Node, reg *function.Registry, ctx *function.EvalContext, opts Options) (logical.Node, physical.Node, error) {
	opt, err := rules.OptimizeWith(n, reg, ctx, opts.Disabled, rules.Settings{JoinReorder: opts.JoinReorder})
	if err != nil {
		return nil, nil, fmt.Errorf("optimize: %w", err)
	}
	if opts.Streaming {
		phys, err := physical.TranslateStream(opt, &physical.Env{Functions: reg, Eval: ctx}, opts.Stream)
		var te *physical.TableError
		if errors.As(err, &te) {
			return nil, nil, te // Flink's own text, without our prefixes
		}
		if err != nil && strings.HasPrefix(err.Error(), "not supported yet: ") {
			return nil, nil, err
		}
		if err != nil {
			return nil, nil, fmt.Errorf("physical plan: %w", err)
		}
		return opt, phys, nil
	}
	phys, err := physical.TranslateWith(opt, &physical.Env{Functions: reg, Eval: ctx})
	if err != nil {
		return nil, nil, fmt.Errorf("physical plan: %w", err)
	}
	if err := physical.CheckBatchSources(phys); err != nil {
		return nil, nil, err
	}
	return opt, physical.ApplyBatchAggPhase(phys, opts.Stream.MiniBatch.Phase), nil
}

// EXPLAIN details, as Flink spells them.
const (
	EstimatedCost     = "ESTIMATED_COST"
	ChangelogMode     = "CHANGELOG_MODE"
	JSONExecutionPlan = "JSON_EXECUTION_PLAN"
	PlanAdvice        = "PLAN_ADVICE"
)

// CheckExplainDetails validates EXPLAIN details before planning: unknown
// ones are an error.
func CheckExplainDetails(details []string) error {
	for _, d := range details {
		switch strings.ToUpper(d) {
		case EstimatedCost, ChangelogMode, PlanAdvice, JSONExecutionPlan:
		default:
			return fmt.Errorf("unknown EXPLAIN detail %q", d)
		}
	}
	return nil
}

// Explain prints EXPLAIN output in Flink's layout:
//
//	== Abstract Syntax Tree ==
//	<the validated logical plan>
//
//	== Optimized Physical Plan ==
//	<the physical plan>
//
//	== Optimized Execution Plan ==
//	<the physical plan, execution flavour>
//
// details (case-insensitive) add changelogMode=[…] (CHANGELOG_MODE) or
// row-count and cost estimates (ESTIMATED_COST) to the physical plan;
// PLAN_ADVICE renames its section "Optimized Physical Plan With Advice"
// and adds the advice (there is none yet). JSON_EXECUTION_PLAN is not
// supported yet: see CheckExplainDetails.
func Explain(ast logical.Node, phys physical.Node, details []string) string {
	return ExplainWith(ast, phys, details, physical.MiniBatchOptions{})
}

// ExplainWith is Explain for a session whose mini-batch and aggregation
// phase settings are mb: PLAN_ADVICE's advice depends on them (advice.go).
func ExplainWith(ast logical.Node, phys physical.Node, details []string, mb physical.MiniBatchOptions) string {
	var opts physical.ExplainOptions
	advice, json := false, false
	for _, d := range details {
		switch strings.ToUpper(d) {
		case EstimatedCost:
			opts.EstimatedCost = true
		case ChangelogMode:
			opts.ChangelogMode = true
		case PlanAdvice:
			advice = true
		case JSONExecutionPlan:
			json = true
		}
	}
	var b strings.Builder
	b.WriteString("== Abstract Syntax Tree ==\n")
	b.WriteString(ExplainLogical(ast))
	b.WriteString("\n== Optimized Physical Plan")
	if advice {
		b.WriteString(" With Advice")
	}
	b.WriteString(" ==\n")
	if advice {
		b.WriteString(withAdvice(physical.ExplainStream(phys, opts), phys, analyzePlan(phys, mb)))
	} else {
		b.WriteString(physical.ExplainStream(phys, opts))
	}
	b.WriteString("\n== Optimized Execution Plan ==\n")
	b.WriteString(physical.ExplainStream(phys, physical.ExplainOptions{Execution: true}))
	if json {
		text, err := ExecutionPlanJSON(phys) // json_plan.go; callers check it first
		if err != nil {
			text = err.Error()
		}
		b.WriteString("\n== Physical Execution Plan ==\n" + text)
	}
	return b.String()
}

// ExplainLogical prints a logical plan as Flink's "Abstract Syntax Tree"
// section does, children drawn with ":- " (more siblings follow) and "+- "
// (last child). It follows Calcite's spelling where the nodes' own
// Describe differs: a LIMIT over an ORDER BY is one LogicalSort
// (sort0=[$1], dir0=[DESC-nulls-last], fetch=[3]), offset=[…] is printed
// only when set, and a sink's table is not back-quoted.
func ExplainLogical(n logical.Node) string {
	var b strings.Builder
	var walk func(n logical.Node, prefix string, last []bool)
	walk = func(n logical.Node, prefix string, last []bool) {
		name, attrs, ch := describeLogical(n)
		b.WriteString(prefix + name + "(" + attrs + ")\n")
		for i, c := range ch {
			var p strings.Builder
			for _, l := range last {
				if l {
					p.WriteString("   ")
				} else {
					p.WriteString(":  ")
				}
			}
			isLast := i == len(ch)-1
			if isLast {
				p.WriteString("+- ")
			} else {
				p.WriteString(":- ")
			}
			walk(c, p.String(), append(append([]bool(nil), last...), isLast))
		}
	}
	walk(n, "", nil)
	return b.String()
}

// describeLogical returns a node's EXPLAIN name, attributes and the
// children to print below it.
func describeLogical(n logical.Node) (string, string, []logical.Node) {
	switch x := n.(type) {
	case *logical.Sort:
		return "LogicalSort", sortAttrs(x.Keys), []logical.Node{x.Input}
	case *logical.Limit:
		var parts []string
		in := x.Input
		if s, ok := in.(*logical.Sort); ok {
			parts = append(parts, sortAttrs(s.Keys))
			in = s.Input
		}
		if x.Offset > 0 {
			parts = append(parts, fmt.Sprintf("offset=[%d]", x.Offset))
		}
		if x.Fetch >= 0 {
			parts = append(parts, fmt.Sprintf("fetch=[%d]", x.Fetch))
		}
		return "LogicalSort", strings.Join(parts, ", "), []logical.Node{in}
	case *logical.Sink:
		return "LogicalSink", "table=[" + x.Table.ID.Summary() + "], fields=[" + strings.Join(x.Input.Schema().Names(), ", ") + "]", []logical.Node{x.Input}
	}
	name, attrs := n.Describe()
	return name, attrs, n.Children()
}

// sortAttrs prints sort keys as Calcite does: sort0=[$1], dir0=[DESC].
// Calcite's default null order is NULLS LAST for ASC and NULLS FIRST for
// DESC; any other is spelled out (ASC-nulls-first, DESC-nulls-last), so
// Flink's default order prints as such.
func sortAttrs(keys []logical.SortKey) string {
	var sorts, dirs []string
	for i, k := range keys {
		sorts = append(sorts, fmt.Sprintf("sort%d=[$%d]", i, k.Index))
		dir := "ASC"
		if k.Desc {
			dir = "DESC"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				dir += "-nulls-first"
			} else {
				dir += "-nulls-last"
			}
		}
		dirs = append(dirs, fmt.Sprintf("dir%d=[%s]", i, dir))
	}
	return strings.Join(append(sorts, dirs...), ", ")
}
