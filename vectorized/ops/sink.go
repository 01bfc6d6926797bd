package ops

import (
	"context"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/vectorized"
)

// Sink adapts a connector sink to an operator: every batch is written, the
// EndOfInput marker finishes (commits) the sink and is forwarded; a
// connectors.WatermarkSink sees the watermarks. Nothing else is emitted.
type Sink struct {
	sink     connectors.Sink
	opened   bool
	finished bool
}

var _ vectorized.Operator = (*Sink)(nil)

// NewSink wraps a connector sink.
func NewSink(s connectors.Sink) *Sink { return &Sink{sink: s} }

// Open implements vectorized.Operator.
func (s *Sink) Open(ctx context.Context) error {
	s.opened = true // Close follows every Open, also a failed one
	return s.sink.Open(ctx)
}

// Process implements vectorized.Operator.
func (s *Sink) Process(ctx context.Context, b vectorized.Batch, _ vectorized.Collector) error {
	if b.NumRows() == 0 {
		return nil
	}
	return s.sink.Write(ctx, b)
}

// OnMarker implements vectorized.Operator.
func (s *Sink) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if ws, ok := s.sink.(connectors.WatermarkSink); ok && m.Kind == vectorized.Watermark {
		if err := ws.OnWatermark(ctx, m.Watermark); err != nil {
			return err
		}
	}
	if m.Kind == vectorized.EndOfInput && !s.finished {
		s.finished = true
		if err := s.sink.Finish(ctx); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (s *Sink) Close() error {
	if !s.opened {
		return nil
	}
	s.opened = false
	return s.sink.Close()
}
