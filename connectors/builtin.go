package connectors

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/connectors/blackhole"
	"github.com/tablerun/tablerun/connectors/datagen"
	"github.com/tablerun/tablerun/connectors/filesystem"
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/print"
	"github.com/tablerun/tablerun/connectors/values"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Builtin returns a registry holding the built-in connectors: values,
// datagen, filesystem (csv, json), print, blackhole, nexmark, jdbc, kafka
// and upsert-kafka.
//
// The connector implementations live in subpackages that do not import
// this package; the factories below adapt them to Factory. Every
// CreateSource / CreateSink first checks the table's options with Flink's
// messages (see ValidateOptions).
func Builtin() *Registry {
	r := NewRegistry()
	r.Register(valuesFactory{})
	r.Register(datagenFactory{})
	r.Register(filesystemFactory{})
	r.Register(printFactory{})
	r.Register(blackholeFactory{})
	r.Register(nexmarkFactory{})
	r.Register(jdbcFactory{})
	r.Register(kafkaFactory{})
	r.Register(kafkaFactory{upsert: true})
	return r
}

func batchSize(cx *Context) int {
	if cx == nil || cx.BatchSize <= 0 {
		return vectorized.DefaultBatchSize
	}
	return cx.BatchSize
}

func intOption(opts map[string]string, key string, def int) (int, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
	}
	return n, nil
}

// ---- values ----

type valuesFactory struct{}

func (valuesFactory) Identifier() string        { return "values" }
func (valuesFactory) RequiredOptions() []string { return nil }
func (valuesFactory) OptionalOptions() []string { return values.OptionalOptions() }

func (f valuesFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	opts := spec.Table.Table.Options
	physical := spec.Table.PhysicalSchema()
	failing, err := config.BoolOption(opts, "failing-source", false)
	if err != nil {
		return nil, err
	}
	if _, err := config.BoolOption(opts, "bounded", false); err != nil {
		return nil, err
	}
	rows, err := values.Rows(opts, physical)
	if err != nil {
		return nil, err
	}
	return values.NewSource(rows, physical, spec.Projection, batchSize(cx), failing)
}

func (f valuesFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	return values.NewSink(spec.Table.ID.String(), spec.Table.PhysicalSchema(), spec.Overwrite), nil
}

// ---- datagen ----

type datagenFactory struct{}

func (datagenFactory) Identifier() string        { return "datagen" }
func (datagenFactory) RequiredOptions() []string { return nil }
func (datagenFactory) OptionalOptions() []string { return datagen.OptionalOptions() }

func (f datagenFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	opts := spec.Table.Table.Options
	physical := spec.Table.PhysicalSchema()
	bounded := cx != nil && cx.Bounded
	var loc *time.Location
	if cx != nil {
		loc = cx.Loc
	}
	// Flink builds the field generators (kind and value errors) before it
	// reports unsupported keys, and checks boundedness last.
	src, err := datagen.NewSource(spec.Table.ID.Summary(), opts, physical, spec.Projection, batchSize(cx), false, loc)
	if err != nil {
		return nil, err
	}
	if err := CheckUnsupported(f.Identifier(), opts, datagen.SupportedOptions(opts, physical)); err != nil {
		return nil, err
	}
	if bounded && src.Rows() < 0 {
		return nil, fmt.Errorf("Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded.", spec.Table.ID.Summary())
	}
	src.SetBounded(bounded)
	return src, nil
}

// Splittable implements SplittableFactory: the row stream is cut into
// chunks dealt round-robin to the instances, each making the rows of its
// chunks (connectors/datagen/split.go), as Flink's DataGeneratorSource
// runs in parallel. 'scan.parallelism' = '1' keeps a single instance.
func (datagenFactory) Splittable(spec SourceSpec) bool {
	if spec.Table == nil {
		return true
	}
	p, ok := spec.Table.Table.Options[datagen.ScanParallel]
	return !ok || strings.TrimSpace(p) != "1"
}

var _ SplittableFactory = datagenFactory{}

func (f datagenFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	return nil, fmt.Errorf("Connector 'datagen' can only be used as a source. It cannot be used as a sink.")
}

// SupportedOptions implements OptionLister: datagen's keys depend on the
// field types.
func (datagenFactory) SupportedOptions(opts map[string]string, schema types.Schema) []string {
	return datagen.SupportedOptions(opts, schema)
}

// ---- filesystem ----

type filesystemFactory struct{}

func (filesystemFactory) Identifier() string        { return "filesystem" }
func (filesystemFactory) RequiredOptions() []string { return filesystem.RequiredOptions() }
func (filesystemFactory) OptionalOptions() []string { return filesystem.OptionalOptions() }

func (f filesystemFactory) config(t *catalog.ResolvedTable) (filesystem.Config, error) {
	opts := t.Table.Options
	if err := ValidateOptions(f, t); err != nil {
		return filesystem.Config{}, err
	}
	cfg, err := filesystem.ParseConfig(opts)
	cfg.PartitionKeys = t.Table.PartitionKeys
	return cfg, err
}

// CanInferSchema implements SchemaInferringFactory.
func (filesystemFactory) CanInferSchema(opts map[string]string) bool {
	return filesystem.CanInferSchema(opts)
}

// InferSchema implements SchemaInferringFactory.
func (filesystemFactory) InferSchema(opts map[string]string) (types.Schema, error) {
	return filesystem.InferSchema(opts)
}

// SupportedOptions implements OptionLister: the connector's keys plus
// those of the table's format.
func (filesystemFactory) SupportedOptions(opts map[string]string, schema types.Schema) []string {
	return filesystem.SupportedOptions(opts["format"])
}

func (f filesystemFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	cfg, err := f.config(spec.Table)
	if err != nil {
		return nil, err
	}
	if cfg.MonitorInterval > 0 && cx != nil && cx.Bounded {
		return nil, fmt.Errorf("Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded.", spec.Table.ID.Summary())
	}
	src, err := filesystem.NewSource(cfg, spec.Table.PhysicalSchema(), spec.Projection, batchSize(cx))
	if err != nil {
		return nil, err
	}
	src.SetReadFields(spec.ReadFields)
	var filter []parquet.Predicate
	for _, e := range spec.Filters {
		if p, ok := filesystem.PushableFilter(e, spec.Table.PhysicalSchema()); ok {
			filter = append(filter, p)
		}
	}
	src.SetFilter(filter)
	return src, nil
}

func (f filesystemFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	cfg, err := f.config(spec.Table)
	if err != nil {
		return nil, err
	}
	return filesystem.NewSink(cfg, spec.Table.PhysicalSchema(), spec.Overwrite, spec.Subtask)
}

// ---- print ----

type printFactory struct{}

func (printFactory) Identifier() string        { return "print" }
func (printFactory) RequiredOptions() []string { return nil }
func (printFactory) OptionalOptions() []string { return print.OptionalOptions() }

func (f printFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("Connector 'print' can only be used as a sink. It cannot be used as a source.")
}

func (f printFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	opts := spec.Table.Table.Options
	toStderr, err := config.BoolOption(opts, "standard-error", false)
	if err != nil {
		return nil, err
	}
	parallelism := 1
	if cx != nil && cx.Parallelism > 0 {
		parallelism = cx.Parallelism
	}
	if parallelism, err = intOption(opts, "sink.parallelism", parallelism); err != nil {
		return nil, err
	}
	var w io.Writer = io.Discard
	if cx != nil {
		if toStderr && cx.Stderr != nil {
			w = cx.Stderr
		} else if !toStderr && cx.Stdout != nil {
			w = cx.Stdout
		}
	}
	prefix := print.Prefix(opts["print-identifier"], parallelism, spec.Subtask)
	return print.NewSink(w, prefix, spec.Table.PhysicalSchema()), nil
}

// ---- blackhole ----

type blackholeFactory struct{}

func (blackholeFactory) Identifier() string        { return "blackhole" }
func (blackholeFactory) RequiredOptions() []string { return nil }
func (blackholeFactory) OptionalOptions() []string { return []string{"sink.parallelism"} }

func (f blackholeFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("Connector 'blackhole' can only be used as a sink. It cannot be used as a source.")
}

func (f blackholeFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	if err := ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	return blackhole.Sink{}, nil
}
