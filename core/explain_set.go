package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablerun/tablerun/planner"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// explainStatementSet is EXPLAIN STATEMENT SET BEGIN INSERT …; … END in
// Flink's layout: every INSERT's tree in the abstract syntax tree and the
// physical plan sections (blank-line separated), and the execution plan as
// one graph where a sub-plan several INSERTs share is printed once, first,
// marked "(reuse_id=[n])", and referenced as "Reused(reference_id=[n])".
func (e *TableEnvironment) explainStatementSet(s *ast.StatementSet, details []string, now time.Time) (string, error) {
	if err := e.checkBatch(); err != nil {
		return "", err
	}
	if err := planner.CheckExplainDetails(details); err != nil {
		return "", classify(KindValidation, err)
	}
	var plans []logical.Node
	var physs []physical.Node
	for _, st := range s.Statements {
		ins, ok := st.(*ast.Insert)
		if !ok {
			return "", unsupported("EXPLAIN of %s in a statement set", statementName(st))
		}
		plan, err := e.validator(now).Insert(ins)
		if err != nil {
			return "", classify(KindValidation, err)
		}
		if err := e.checkConnectorOptions(plan); err != nil {
			return "", err
		}
		_, phys, err := e.optimize(plan, now)
		if err != nil {
			return "", err
		}
		plans = append(plans, plan)
		physs = append(physs, phys)
	}
	var opts physical.ExplainOptions
	for _, d := range details {
		switch strings.ToUpper(d) {
		case planner.EstimatedCost:
			opts.EstimatedCost = true
		case planner.ChangelogMode:
			opts.ChangelogMode = true
		case planner.PlanAdvice, planner.JSONExecutionPlan:
			return "", unsupported("EXPLAIN %s of a statement set", strings.ToUpper(d))
		}
	}
	var b strings.Builder
	b.WriteString("== Abstract Syntax Tree ==\n")
	for i, p := range plans {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(planner.ExplainLogical(p))
	}
	b.WriteString("\n== Optimized Physical Plan ==\n")
	for i, p := range physs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(physical.ExplainStream(p, opts))
	}
	b.WriteString("\n== Optimized Execution Plan ==\n")
	b.WriteString(explainShared(physs))
	return b.String(), nil
}

// explainShared prints several plans as one execution graph: a subtree
// (not a root) that occurs more than once, by its printed text, is shown
// once on its own with "(reuse_id=[n])" and replaced by
// "Reused(reference_id=[n])" in the roots' trees.
func explainShared(roots []physical.Node) string {
	exec := physical.ExplainOptions{Execution: true}
	digest := map[physical.Node]string{}
	count := map[string]int{}
	var collect func(n physical.Node, root bool)
	collect = func(n physical.Node, root bool) {
		d := physical.ExplainStream(n, exec)
		digest[n] = d
		if !root {
			count[d]++
		}
		for _, c := range n.Children() {
			collect(c, false)
		}
	}
	for _, r := range roots {
		collect(r, true)
	}
	ids := map[string]int{}
	var order []physical.Node
	var find func(n physical.Node, root bool)
	find = func(n physical.Node, root bool) {
		if !root && count[digest[n]] > 1 {
			if _, ok := ids[digest[n]]; !ok {
				ids[digest[n]] = len(ids) + 1
				order = append(order, n)
			}
			return
		}
		for _, c := range n.Children() {
			find(c, false)
		}
	}
	for _, r := range roots {
		find(r, true)
	}
	var blocks []string
	for _, n := range order {
		blocks = append(blocks, printShared(n, ids, true))
	}
	for _, r := range roots {
		blocks = append(blocks, printShared(r, ids, false))
	}
	return strings.Join(blocks, "\n")
}

// printShared prints one tree in the execution flavour; reused subtrees
// below the top are replaced by their reference, and with top the tree's
// first line carries its own reuse id.
func printShared(top physical.Node, ids map[string]int, self bool) string {
	exec := physical.ExplainOptions{Execution: true}
	var b strings.Builder
	var walk func(n physical.Node, prefix string, last []bool, first bool)
	walk = func(n physical.Node, prefix string, last []bool, first bool) {
		if !first {
			if id, ok := ids[physical.ExplainStream(n, exec)]; ok {
				fmt.Fprintf(&b, "%sReused(reference_id=[%d])\n", prefix, id)
				return
			}
		}
		b.WriteString(prefix + n.Name() + "(" + n.Explain(true) + ")")
		if first && self {
			fmt.Fprintf(&b, "(reuse_id=[%d])", ids[physical.ExplainStream(n, exec)])
		}
		b.WriteString("\n")
		ch := n.Children()
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
			walk(c, p.String(), append(append([]bool(nil), last...), isLast), false)
		}
	}
	walk(top, "", nil, true)
	return b.String()
}
