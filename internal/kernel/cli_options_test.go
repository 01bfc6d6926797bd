package kernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestKernelOptionFlags(t *testing.T) {
	var out strings.Builder
	require.Equal(t, 2, Main(context.Background(), []string{"--connection-file", "x.json", "-D", "no-equals"}, &out))
	require.Contains(t, out.String(), "expected key=value")
	out.Reset()
	// A valid -D reaches the connection file, which does not exist.
	require.Equal(t, 1, Main(context.Background(), []string{"--connection-file", "/nonexistent/x.json", "-D", "execution.runtime-mode=streaming"}, &out))
	require.Contains(t, out.String(), "x.json")
}

func TestWatchParentStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		watchParent(ctx, func() {}, 10*time.Millisecond)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("watchParent did not return after its context ended")
	}
}
