package connectors

import (
	"fmt"

	"github.com/tablerun/tablerun/connectors/nexmark"
	"github.com/tablerun/tablerun/vectorized"
)

// ---- nexmark ----

type nexmarkFactory struct{}

func (nexmarkFactory) Identifier() string        { return "nexmark" }
func (nexmarkFactory) RequiredOptions() []string { return nil }
func (nexmarkFactory) OptionalOptions() []string { return nexmark.OptionalOptions() }

func (f nexmarkFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	cfg, err := nexmark.ParseConfig(spec.Table.Table.Options)
	if err != nil {
		return nil, err
	}
	if cx != nil && cx.Bounded && !cfg.Bounded() {
		return nil, fmt.Errorf("Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded.", spec.Table.ID.Summary())
	}
	src, err := nexmark.NewSource(cfg, spec.Table.PhysicalSchema(), spec.Projection, batchSize(cx))
	if err != nil {
		return nil, err
	}
	src.SetReadFields(spec.ReadFields) // unread ROW fields come out NULL
	return src, nil
}

// Splittable implements SplittableFactory: the generator is cut into
// batch-sized chunks, dealt round-robin to the instances.
func (nexmarkFactory) Splittable(SourceSpec) bool { return true }

func (f nexmarkFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	return nil, fmt.Errorf("Connector 'nexmark' can only be used as a source. It cannot be used as a sink.")
}
