// Package sqltest holds helpers for tests that run SQL through core from
// other packages.
package sqltest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// Materialize applies the changelog of a result (+I/+U add a row, -U/-D
// retract an equal one, which must be there) and returns the live rows,
// printed and sorted.
func Materialize(t testing.TB, res *core.TableResult) []string {
	t.Helper()
	live := map[string]int{}
	for k, row := range res.Changes() {
		key := fmt.Sprint(row)
		if k.IsRetraction() {
			require.Positive(t, live[key], "retracting a row that is not there: %s", key)
			live[key]--
		} else {
			live[key]++
		}
	}
	require.NoError(t, res.Err())
	var out []string
	for k, c := range live {
		for range c {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
