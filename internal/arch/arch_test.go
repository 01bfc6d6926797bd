// Package arch holds tests about the shape of the code base itself.
package arch

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/tablerun/tablerun/"

// layer returns the rank of a package in the import direction of
// ARCHITECTURE.md; a package may import only packages of a lower or equal
// rank (equal only within the same group).
func layer(pkg string) (rank int, group string) {
	p := strings.TrimPrefix(pkg, module)
	switch {
	case p == "core/types" || p == "core/changelog" || p == "core/config":
		return 0, "core-base"
	case p == "bench/tpch":
		// The TPC-H kit (data generator, DDL, query files) imports only
		// the standard library, so `tablerun bench tpch` can use it.
		return 0, "tpch"
	case p == "core/catalog" || p == "core/function" || p == "core/module":
		return 1, "core-objects"
	case strings.HasPrefix(p, "planner"):
		return 2, "planner"
	case strings.HasPrefix(p, "vectorized"), strings.HasPrefix(p, "connectors"), strings.HasPrefix(p, "udf"):
		return 3, "exec"
	case p == "flinkgw":
		// The SQL Gateway client is the remote executor of a
		// TableEnvironment (core/remote.go); it reads only core/types.
		return 3, "exec"
	case p == "core" || strings.HasPrefix(p, "modules"):
		return 4, "facade"
	case strings.HasPrefix(p, "cmd/"), p == "internal/shell", p == "internal/kernel", p == "internal/bench",
		p == "internal/flinkdiff", p == "internal/flinkenv", p == "internal/flinkcheck", p == "internal/flightsql",
		p == "internal/gateway":
		// The clients: the command, its interactive shell, the Jupyter
		// kernel, the benchmark runner and the differential harness
		// against a real Flink (with its cluster starter), the Flight SQL
		// server and the SQL Gateway server sit on top of the facade.
		return 5, "cmd"
	}
	return 6, "other" // tests, benchmarks, internal tooling: may import anything
}

// TestImportDirection enforces the layering of ARCHITECTURE.md: lower
// layers never import higher ones, the planner never imports the executor,
// and only vectorized/build reads planner/physical outside the planner.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	require.NoError(t, err)
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		r, g := layer(pkg)
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			checked++
			ir, ig := layer(imp)
			if g == "other" {
				continue
			}
			require.LessOrEqualf(t, ir, r, "%s (layer %s) must not import %s (layer %s)", pkg, g, imp, ig)
			if ir == r && ig != g {
				t.Errorf("%s (%s) must not import %s (%s)", pkg, g, imp, ig)
			}
			if strings.HasSuffix(imp, "/planner/physical") && !strings.HasPrefix(pkg, module+"planner") &&
				pkg != module+"vectorized/build" && r < 4 {
				t.Errorf("%s must not read planner/physical: only vectorized/build does", pkg)
			}
		}
	}
	require.Greater(t, checked, 0, "no project imports were checked")
}
