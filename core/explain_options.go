package core

import (
	"strings"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/planner"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// checkJSONPlan reports, before EXPLAIN prints anything, a
// JSON_EXECUTION_PLAN detail that cannot be produced for phys.
func checkJSONPlan(phys physical.Node, details []string) error {
	for _, d := range details {
		if strings.EqualFold(d, planner.JSONExecutionPlan) {
			if _, err := planner.ExecutionPlanJSON(phys); err != nil {
				return classify(KindPlanner, err)
			}
		}
	}
	return nil
}

// checkConnectorOptions validates the options of every table a plan reads
// or writes against its connector, as Flink does when it creates the
// table's source and sink while planning (so EXPLAIN fails with
// "Unsupported options found for 'datagen'." just as executing would).
// Tables whose connector is not registered are left to execution, which
// reports them with Flink's text.
func (e *TableEnvironment) checkConnectorOptions(n logical.Node) error {
	if n == nil || e.conns == nil {
		return nil
	}
	var err error
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		if err != nil || n == nil {
			return
		}
		switch x := n.(type) {
		case *logical.Scan:
			if x.Table != nil && x.Table.Table != nil {
				if f, lerr := e.conns.Lookup(x.Table); lerr == nil {
					err = connectors.ValidateOptions(f, x.Table)
				}
			}
		case *logical.Sink:
			if x.Table != nil && x.Table.Table != nil {
				if f, lerr := e.conns.Lookup(x.Table); lerr == nil {
					err = connectors.ValidateOptions(f, x.Table)
				}
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	if err != nil {
		return classify(KindValidation, err)
	}
	return nil
}
