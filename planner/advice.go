package planner

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/physical"
)

// planAdvice is one entry of EXPLAIN PLAN_ADVICE: the nodes it is about
// and its text.
type planAdvice struct {
	nodes []physical.Node
	text  string
}

// analyzePlan runs Flink's plan analyzers that tablerun has: the group
// aggregation analyzer, which advises local-global two-phase aggregation
// for a streaming GroupAggregate whose calls can all merge partial results
// (COUNT, SUM, SUM0, AVG, MIN, MAX, DISTINCT or not) while the session
// does not enable it, naming the settings still missing.
func analyzePlan(phys physical.Node, mb physical.MiniBatchOptions) []planAdvice {
	var targets []physical.Node
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if g, ok := n.(*physical.GroupAggregate); ok && g.MiniBatchSize == 0 && mergeable(g) {
			targets = append(targets, n)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(phys)
	if len(targets) == 0 {
		return nil
	}
	var tuning []string
	if strings.EqualFold(mb.Phase, "ONE_PHASE") {
		tuning = append(tuning, "'table.optimizer.agg-phase-strategy' to 'TWO_PHASE'")
	}
	if !mb.Enabled {
		tuning = append(tuning, "'table.exec.mini-batch.enabled' to 'true'")
	}
	if mb.IntervalMs <= 0 {
		tuning = append(tuning, "'table.exec.mini-batch.allow-latency' to a positive long value")
	}
	if mb.Size <= 0 {
		tuning = append(tuning, "'table.exec.mini-batch.size' to a positive long value")
	}
	if len(tuning) == 0 {
		return nil
	}
	return []planAdvice{{nodes: targets, text: "[ADVICE] You might want to enable local-global two-phase optimization by configuring (" + strings.Join(tuning, ", ") + ")."}}
}

func mergeable(g *physical.GroupAggregate) bool {
	for _, a := range g.Aggs {
		switch strings.ToUpper(a.Name) {
		case "COUNT", "SUM", "SUM0", "$SUM0", "AVG", "MIN", "MAX":
		default:
			return false
		}
	}
	return true
}

// withAdvice marks the advised nodes of a printed physical plan (one line
// per node, pre-order) with "advice=[i]" as their first attribute and
// appends the advice lines, or "No available advice..." when there is none.
func withAdvice(plan string, phys physical.Node, advice []planAdvice) string {
	if len(advice) == 0 {
		return plan + "\nNo available advice...\n"
	}
	var order []physical.Node
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		order = append(order, n)
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(phys)
	lines := strings.Split(strings.TrimSuffix(plan, "\n"), "\n")
	if len(lines) == len(order) {
		for i, n := range order {
			var ids []string
			for k, a := range advice {
				for _, t := range a.nodes {
					if t == n {
						ids = append(ids, fmt.Sprint(k+1))
					}
				}
			}
			if len(ids) > 0 {
				lines[i] = strings.Replace(lines[i], n.Name()+"(", n.Name()+"(advice=["+strings.Join(ids, ",")+"], ", 1)
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines, "\n") + "\n")
	for k, a := range advice {
		fmt.Fprintf(&b, "\nadvice[%d]: %s\n", k+1, a.text)
	}
	return b.String()
}
