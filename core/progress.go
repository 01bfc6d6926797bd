package core

import (
	"context"
	"io"

	"github.com/tablerun/tablerun/vectorized/build"
)

// Progress counts the rows the table sources of a running statement have
// read so far: poll RowsRead from another goroutine while ExecuteSQL (or
// a streaming result) runs with a context from WithProgress. It is
// lock-free and safe for concurrent use.
type Progress = build.Progress

// WithProgress returns a context whose statements count the rows their
// sources read into the returned Progress. Pass the context to
// ExecuteSQL; each statement (or session) should use its own.
func WithProgress(ctx context.Context) (context.Context, *Progress) {
	p := &Progress{}
	return build.WithProgress(ctx, p), p
}

// Output returns where connectors that print write (see SetOutput).
func (e *TableEnvironment) Output() (stdout, stderr io.Writer) {
	e.state.Lock()
	defer e.state.Unlock()
	return e.stdout, e.stderr
}
