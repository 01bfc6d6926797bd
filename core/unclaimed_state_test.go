package core

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRestoreRefusesUnclaimedState restores a savepoint of a windowed
// aggregation into a plan without the aggregation: the state of the
// operators the new plan lacks would be dropped silently, so the job fails
// naming them, unless execution.savepoint.ignore-unclaimed-state is true.
func TestRestoreRefusesUnclaimedState(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range append(jobTables(out),
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, jobInsert)
	time.Sleep(200 * time.Millisecond)
	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")

	changed := "INSERT INTO snk SELECT k, CAST(ts AS TIMESTAMP(3)), id, id FROM src"
	again := NewTableEnvironment(InStreamingMode())
	for _, s := range append(jobTables(out), "SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, again, s)
	}
	_, err := again.ExecuteSQL(context.Background(), changed)
	require.Error(t, err)
	require.ErrorContains(t, err, "Failed to rollback to checkpoint/savepoint "+path+". Cannot map checkpoint/savepoint state for operator ")
	require.ErrorContains(t, err, "WindowAggregate")
	require.ErrorContains(t, err, "'execution.savepoint.ignore-unclaimed-state' to 'true'")

	// The same plan restores: every operator's state is claimed.
	same := NewTableEnvironment(InStreamingMode())
	for _, s := range append(jobTables(out), "SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, same, s)
	}
	exec(t, same, jobInsert)

	for _, key := range []string{"execution.savepoint.ignore-unclaimed-state", "execution.state-recovery.ignore-unclaimed-state"} {
		exec(t, again, "SET '"+key+"' = 'true'")
		exec(t, again, changed)
		exec(t, again, "RESET '"+key+"'")
	}
}
