// Package print is Flink's 'print' connector: a sink that writes every row
// as one line, `+I[1, Hello, null]` — the row kind, then the fields as the
// Java toString of Flink's default external classes (types.FormatJava).
//
// The line prefix follows Flink's PrintSinkOutputWriter: with parallelism
// > 1 it is `<print-identifier>:<subtask+1>> ` (or `<subtask+1>> ` without
// an identifier); with parallelism 1 it is `<print-identifier>> ` or
// nothing. The engine runs the sink as subtask 0.
package print

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// OptionalOptions are the keys a print table accepts.
func OptionalOptions() []string {
	return []string{"print-identifier", "sink.parallelism", "standard-error"}
}

// Prefix returns the line prefix for a sink subtask (0-based) of the given
// parallelism.
func Prefix(identifier string, parallelism, subtask int) string {
	id := identifier
	if parallelism > 1 {
		if id != "" {
			id += ":"
		}
		id += strconv.Itoa(subtask + 1)
	}
	if id == "" {
		return ""
	}
	return id + "> "
}

// Sink prints rows to a writer.
type Sink struct {
	w      *bufio.Writer
	prefix string
	schema types.Schema
	line   []byte
}

// NewSink returns a sink of rows of schema writing to w with the given line
// prefix (see Prefix).
func NewSink(w io.Writer, prefix string, schema types.Schema) *Sink {
	return &Sink{w: bufio.NewWriter(w), prefix: prefix, schema: schema}
}

// Open does nothing.
func (s *Sink) Open(ctx context.Context) error { return nil }

// Write prints the rows of b.
func (s *Sink) Write(ctx context.Context, b vectorized.Batch) error {
	n := b.NumRows()
	for r := 0; r < n; r++ {
		line := append(s.line[:0], s.prefix...)
		line = append(line, b.Kind(r).String()...)
		line = append(line, '[')
		for c := range s.schema {
			if c > 0 {
				line = append(line, ", "...)
			}
			v := types.GetValue(b.Rec.Column(c), r, s.schema[c].Type)
			line = types.AppendJava(line, v, s.schema[c].Type)
		}
		line = append(line, ']', '\n')
		s.line = line
		if _, err := s.w.Write(line); err != nil {
			return fmt.Errorf("print: %w", err)
		}
	}
	// Flush per batch so lines interleave sensibly with other output.
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("print: %w", err)
	}
	return nil
}

// Finish flushes the output.
func (s *Sink) Finish(ctx context.Context) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("print: %w", err)
	}
	return nil
}

// Close does nothing.
func (s *Sink) Close() error { return nil }
