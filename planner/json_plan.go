package planner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/physical"
)

// jsonNode is one operator of the execution graph JSON_EXECUTION_PLAN
// prints (Flink's StreamGraph JSON).
type jsonNode struct {
	id       int
	typ      string
	pact     string
	contents string
	preds    []jsonEdge
}

type jsonEdge struct {
	id   int
	ship string
}

// ExecutionPlanJSON prints the execution graph of a streaming physical
// plan as Flink's JSON_EXECUTION_PLAN does: one node per operator in
// creation order (inputs first), sources as "Source: <table>[id]" Data
// Source nodes, every other node "<Name>[id]" with the execution-plan
// description as contents, and its inputs as predecessors; an Exchange is
// no node but the ship strategy of the edge above it (HASH by keys,
// GLOBAL to one instance, FORWARD otherwise). tablerun runs every operator
// once, so each has parallelism 1. Plans with a sink are not supported
// yet (Flink's sink-side operators depend on the connector).
func ExecutionPlanJSON(phys physical.Node) (string, error) {
	var nodes []jsonNode
	var visit func(n physical.Node) (int, string, error)
	visit = func(n physical.Node) (int, string, error) {
		switch x := n.(type) {
		case *physical.Exchange:
			id, _, err := visit(x.Input)
			if len(x.Keys) == 0 {
				return id, "GLOBAL", err
			}
			return id, "HASH", err
		case *physical.Sink, *physical.StreamSink:
			return 0, "", fmt.Errorf("not supported yet: EXPLAIN %s of an INSERT", JSONExecutionPlan)
		}
		var preds []jsonEdge
		for _, c := range n.Children() {
			id, ship, err := visit(c)
			if err != nil {
				return 0, "", err
			}
			preds = append(preds, jsonEdge{id: id, ship: ship})
		}
		id := len(nodes) + 1
		desc := n.Name() + "(" + n.Explain(true) + ")"
		jn := jsonNode{id: id, pact: "Operator", typ: fmt.Sprintf("%s[%d]", n.Name(), id),
			contents: fmt.Sprintf("[%d]:%s", id, desc), preds: preds}
		switch x := n.(type) {
		case *physical.TableSourceScan:
			name := "table"
			if x.Table != nil {
				name = x.Table.ID.Object
			}
			jn.typ, jn.pact = fmt.Sprintf("Source: %s[%d]", name, id), "Data Source"
		case *physical.Values:
			jn.typ, jn.pact = fmt.Sprintf("Source: Values[%d]", id), "Data Source"
		}
		nodes = append(nodes, jn)
		return id, "FORWARD", nil
	}
	if _, _, err := visit(phys); err != nil {
		return "", err
	}
	q := func(s string) string { // as Jackson: no HTML escaping
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return strings.TrimSuffix(sb.String(), "\n")
	}
	var b strings.Builder
	b.WriteString("{\n  \"nodes\" : [ ")
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{\n    \"id\" : %d,\n    \"type\" : %s,\n    \"pact\" : %s,\n    \"contents\" : %s,\n    \"parallelism\" : 1", n.id, q(n.typ), q(n.pact), q(n.contents))
		if len(n.preds) > 0 {
			b.WriteString(",\n    \"predecessors\" : [ ")
			for j, p := range n.preds {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "{\n      \"id\" : %d,\n      \"ship_strategy\" : %s,\n      \"side\" : \"second\"\n    }", p.id, q(p.ship))
			}
			b.WriteString(" ]")
		}
		b.WriteString("\n  }")
	}
	b.WriteString(" ]\n}")
	return b.String(), nil
}
