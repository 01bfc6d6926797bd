package core

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProcessMemorySize: taskmanager.memory.process.size becomes the Go
// runtime's soft memory limit when a job starts, and a job without it
// restores the process's own limit.
func TestProcessMemorySize(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	e := newEnv(t)
	_, err := e.ExecuteSQL(context.Background(), "SET 'taskmanager.memory.process.size' = 'lots'")
	require.Error(t, err)
	exec(t, e, "SET 'taskmanager.memory.process.size' = '3 gb'")
	exec(t, e, "SELECT 1")
	require.Equal(t, int64(3<<30), debug.SetMemoryLimit(-1))
	exec(t, e, "RESET 'taskmanager.memory.process.size'")
	exec(t, e, "SELECT 1")
	require.Equal(t, before, debug.SetMemoryLimit(-1))
}
