package connectors

import (
	"context"

	"github.com/tablerun/tablerun/connectors/filesystem"
)

// WatermarkSink is a Sink that wants the watermarks of its input (the
// filesystem sink's partition-time commit trigger): OnWatermark is called
// on the sink's goroutine, in stream order with Write, for every
// watermark that reaches the sink.
type WatermarkSink interface {
	Sink
	OnWatermark(ctx context.Context, watermark int64) error
}

var _ WatermarkSink = (*filesystem.Sink)(nil)
