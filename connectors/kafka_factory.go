package connectors

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/connectors/kafka"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// ---- kafka, upsert-kafka ----

// kafkaFactory is 'connector' = 'kafka' (upsert false) and
// 'upsert-kafka' (upsert true).
type kafkaFactory struct{ upsert bool }

func (f kafkaFactory) Identifier() string {
	if f.upsert {
		return "upsert-kafka"
	}
	return "kafka"
}

func (f kafkaFactory) RequiredOptions() []string {
	if f.upsert {
		return kafka.UpsertRequiredOptions()
	}
	return kafka.RequiredOptions()
}

func (f kafkaFactory) OptionalOptions() []string {
	if f.upsert {
		return kafka.UpsertOptionalOptions()
	}
	return kafka.OptionalOptions()
}

// SupportedOptions implements OptionLister: properties.* pass through to
// the Kafka client and the formats add their keys.
func (f kafkaFactory) SupportedOptions(opts map[string]string, _ types.Schema) []string {
	return kafka.SupportedOptions(opts, f.upsert)
}

func (f kafkaFactory) config(t *catalog.ResolvedTable) (*kafka.Config, error) {
	if err := ValidateOptions(f, t); err != nil {
		return nil, err
	}
	return kafka.ParseConfig(t, f.upsert)
}

func (f kafkaFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	cfg, err := f.config(spec.Table)
	if err != nil {
		return nil, err
	}
	if f.upsert && cx != nil && cx.Bounded {
		return nil, fmt.Errorf("not supported yet: reading the 'upsert-kafka' table %s in batch mode", spec.Table.ID.Summary())
	}
	if cx != nil && cx.Bounded && !cfg.Bounded() {
		return nil, fmt.Errorf("Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded.", spec.Table.ID.Summary())
	}
	var meta []string
	for _, c := range spec.Table.Table.MetadataColumns(false) {
		meta = append(meta, c.Key())
	}
	return kafka.NewSource(cfg, spec.Table.PhysicalSchema(), meta, spec.Projection, batchSize(cx))
}

// Splittable implements SplittableFactory: the partitions are dealt to
// the instances as Flink's KafkaSourceEnumerator does; 'scan.parallelism'
// = '1' keeps one instance.
func (kafkaFactory) Splittable(spec SourceSpec) bool {
	if spec.Table == nil {
		return true
	}
	p, ok := spec.Table.Table.Options[kafka.KeyScanParallelism]
	return !ok || strings.TrimSpace(p) != "1"
}

func (f kafkaFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	cfg, err := f.config(spec.Table)
	if err != nil {
		return nil, err
	}
	par := 1
	if cx != nil && cx.Parallelism > 0 {
		par = cx.Parallelism
	}
	var meta []string
	for _, c := range spec.Table.Table.MetadataColumns(true) {
		meta = append(meta, c.Key())
	}
	return kafka.NewSink(cfg, spec.Table.Table.SinkSchema(), meta, spec.Subtask, par)
}

// Abilities implements AbilitiesFactory: bounded with 'scan.bounded.mode',
// projection pushed into the source. A kafka table reads and writes the
// row kinds of its value format (a changelog format such as debezium-json:
// all); upsert-kafka reads an upsert changelog keyed by the primary key
// (the planner normalizes it; the scan reads every column, so the key is
// there) and writes upserts. Both read the record's metadata and the
// value format's (prefixed 'value.') and write the headers and the
// timestamp, as Flink's KafkaDynamicSource and KafkaDynamicSink.
func (f kafkaFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	_, bounded := t.Table.Options[kafka.KeyBoundedMode]
	bounded = bounded && t.Table.Options[kafka.KeyBoundedMode] != kafka.ModeUnbounded
	a := catalog.Abilities{Bounded: bounded, ProjectionPushDown: true,
		ReadableMetadata: kafka.ReadableMetadata(t.Table.Options), WritableMetadata: kafka.WritableMetadata()}
	if f.upsert {
		a.ProjectionPushDown = false
		a.ScanMode, a.SinkMode = changelog.Upsert, changelog.Upsert
		return a
	}
	if dec, enc, ok := kafka.FormatModes(t.Table.Options); ok {
		if !dec.IsInsertOnly() {
			a.ScanMode = dec
		}
		if !enc.IsInsertOnly() {
			a.SinkMode = enc
		}
	}
	return a
}

var (
	_ AbilitiesFactory  = kafkaFactory{}
	_ SplittableFactory = kafkaFactory{}
	_ OptionLister      = kafkaFactory{}
	_ TwoPhaseSink      = (*kafka.Sink)(nil)
	_ SplitSource       = (*kafka.Source)(nil)
)
