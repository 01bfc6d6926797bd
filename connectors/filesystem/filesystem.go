// Package filesystem is Flink's 'filesystem' connector with the 'csv' and
// 'json' formats.
//
// Reading: 'path' names a file or a directory (a local path, or a
// file:// URI). A directory is read recursively in path order; files and
// directories whose names start with '.' or '_' are skipped (in-progress
// and marker files, as in Flink). Each file is streamed through a bounded
// buffer. With 'source.monitor-interval' the source is unbounded (a
// streaming job only: batch mode rejects the table as Flink does): after
// the existing files it lists the directory again at that interval and
// reads every file it has not read yet, once, until the job is
// cancelled; the files read are part of its checkpointed position.
//
// Partitioned tables (PARTITIONED BY) are laid out and committed as in
// Flink; see partition.go.
//
// Writing: 'path' is a directory (created if missing). Each sink instance
// (subtask) writes rolling part files named `part-<uuid>-<subtask>-<n>` as
// Flink does. A part file is first written under a hidden in-progress name
// (`.part-….inprogress`); when it rolls (sink.rolling-policy.file-size,
// default 128 MB, or sink.rolling-policy.rollover-interval, default 30
// min, and at every checkpoint) it is flushed, fsynced and renamed to a
// hidden pending name (`.part-….pending`); it becomes visible under its
// final name when it is committed. Readers never see hidden files.
//
// Guarantees: with checkpointing the sink is exactly-once (Flink's
// two-phase commit): the files written before a checkpoint's barrier are
// recorded in the checkpoint and committed when the checkpoint completes,
// so committed output holds every row exactly once; after a crash the job
// restores from the checkpoint, which commits that checkpoint's files (if
// not done already) and discards the in-progress and pending files written
// after it; restoring from an older checkpoint (the latest one is corrupt)
// also removes the files this job committed after it, recognised by the
// job's uuid prefix and part counters. Without checkpointing, a bounded write commits everything when
// it finishes and an aborted write leaves nothing visible. INSERT
// OVERWRITE removes the directory's visible files that existed when the
// write started, on commit; it is not supported with checkpointing (Flink
// does not support overwrite in streaming mode). Writing into a path that
// is an existing regular file is not supported (Flink writes directories
// only).
//
// Neither format has a header line (Flink's csv format has no header
// option): a file written by other tools must not have one.
package filesystem

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/filesystem/arrowipc"
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/avro"
	"github.com/tablerun/tablerun/connectors/format/csv"
	"github.com/tablerun/tablerun/connectors/format/formats"
	"github.com/tablerun/tablerun/connectors/format/json"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Config is the parsed options of a filesystem table.
type Config struct {
	Path    string
	Format  string // "csv", "json", "parquet", "avro" or "arrow"
	CSV     csv.Options
	JSON    json.Options
	Parquet parquet.Options
	Avro    avro.Options
	Arrow   arrowipc.Options
	// Message is the format of the line formats read and written one
	// message per line through connectors/format ('raw' and the
	// changelog formats 'debezium-json', 'canal-json', 'maxwell-json',
	// 'ogg-json'); nil for the others.
	Message format.Format
	// RollingFileSize is sink.rolling-policy.file-size: a part file rolls
	// once it holds this many bytes (default 128 MB).
	RollingFileSize int64
	// RolloverInterval is sink.rolling-policy.rollover-interval: a part
	// file rolls once it has been open this long (default 30 min).
	RolloverInterval time.Duration
	// MonitorInterval is source.monitor-interval: when set (> 0) the
	// source is unbounded and lists the directory again at this interval
	// for new files; 0 reads the files once (bounded).
	MonitorInterval time.Duration
	// PartitionKeys are the table's PARTITIONED BY columns: the sink
	// writes `key=value` directories, the source reads them back
	// (partition.go).
	PartitionKeys []string
	// DefaultPartitionName is partition.default-name: the directory
	// value of a NULL or empty partition value.
	DefaultPartitionName string
	// Commit is the partition commit configuration of the sink.
	Commit PartitionCommit
}

// RequiredOptions are the keys a filesystem table must have.
func RequiredOptions() []string { return []string{"format", "path"} }

// connectorOptions are the filesystem connector's own optional keys.
// sink.rolling-policy.file-size and sink.rolling-policy.rollover-interval
// roll part files, source.monitor-interval makes the source unbounded,
// partition.default-name names NULL partitions (partition.go); the other
// rolling and compaction keys are accepted and have no effect. The
// partition commit keys are commitOptions (partition.go).
var connectorOptions = []string{
	"auto-compaction", "compaction.file-size", "partition.default-name",
	"sink.parallelism", "sink.rolling-policy.file-size", "sink.rolling-policy.rollover-interval",
	"sink.rolling-policy.check-interval", "sink.rolling-policy.inactivity-interval",
	"sink.shuffle-by-partition.enable", "source.monitor-interval", "source.report-statistics",
}

var (
	csvOptions  = prefixKeys("csv.", csv.OptionKeys())
	jsonOptions = prefixKeys("json.", json.OptionKeys())
)

func prefixKeys(prefix string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + k
	}
	return out
}

// OptionalOptions lists every optional key (connector and both formats).
func OptionalOptions() []string {
	out := append(append([]string{}, connectorOptions...), commitOptions...)
	out = append(out, csvOptions...)
	out = append(out, parquet.OptionKeys()...)
	out = append(out, avro.OptionKeys()...)
	out = append(out, arrowipc.OptionKeys()...)
	for _, f := range messageFormats {
		out = append(out, messageFormatKeys(f)...)
	}
	return append(out, jsonOptions...)
}

// SupportedOptions lists the keys valid for a table with the given format:
// the connector's keys plus that format's keys.
func SupportedOptions(format string) []string {
	out := append(append(RequiredOptions(), connectorOptions...), commitOptions...)
	switch format {
	case "csv":
		out = append(out, csvOptions...)
	case "json":
		out = append(out, jsonOptions...)
	case "parquet":
		out = append(out, parquet.OptionKeys()...)
	case "avro":
		out = append(out, avro.OptionKeys()...)
	case "arrow":
		out = append(out, arrowipc.OptionKeys()...)
	default:
		out = append(out, messageFormatKeys(format)...)
	}
	return out
}

// messageFormats are the formats read and written one message per line
// (Config.Message).
var messageFormats = []string{"raw", "debezium-json", "canal-json", "maxwell-json", "ogg-json"}

// MessageFormat returns the configured line format of a table's options
// (Config.Message), nil when the table's format is not one.
func MessageFormat(opts map[string]string) (format.Format, error) {
	for _, f := range messageFormats {
		if f == opts["format"] {
			return formats.Builtin().Open(opts, "format")
		}
	}
	return nil, nil
}

func messageFormatKeys(id string) []string {
	for _, f := range messageFormats {
		if f == id {
			return formats.Builtin().OptionKeys(map[string]string{"format": id}, "format")
		}
	}
	return nil
}

// formatOptions returns the options under prefix, without it.
func formatOptions(opts map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range opts {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out[rest] = v
		}
	}
	return out
}

// ParseConfig reads and checks the options of a filesystem table.
func ParseConfig(opts map[string]string) (Config, error) {
	// A local path may be written as a file:// URI, as in Flink.
	path := strings.TrimPrefix(opts["path"], "file://")
	cfg := Config{Path: path, Format: opts["format"], CSV: csv.DefaultOptions(), JSON: json.DefaultOptions()}
	var err error
	if cfg.RollingFileSize, cfg.RolloverInterval, err = parseRolling(opts); err != nil {
		return cfg, err
	}
	if v, ok := opts["source.monitor-interval"]; ok {
		d, err := config.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("Could not parse value '%s' for key 'source.monitor-interval'.", v)
		}
		cfg.MonitorInterval = d
	}
	cfg.DefaultPartitionName = DefaultPartitionName
	if v, ok := opts["partition.default-name"]; ok {
		cfg.DefaultPartitionName = v
	}
	if cfg.Commit, err = parseCommit(opts); err != nil {
		return cfg, err
	}
	switch cfg.Format {
	case "csv":
		if cfg.CSV, err = csv.ParseOptions(formatOptions(opts, "csv."), "csv."); err != nil {
			return cfg, err
		}
	case "json":
		if cfg.JSON, err = json.ParseOptions(formatOptions(opts, "json."), "json."); err != nil {
			return cfg, err
		}
	case "parquet":
		if cfg.Parquet, err = parquet.ParseOptions(opts); err != nil {
			return cfg, err
		}
	case "avro":
		if cfg.Avro, err = avro.ParseOptions(opts); err != nil {
			return cfg, err
		}
	case "arrow": // a tablerun extension: Flink has no Arrow file format
		if cfg.Arrow, err = arrowipc.ParseOptions(opts); err != nil {
			return cfg, err
		}
	case "raw", "debezium-json", "canal-json", "maxwell-json", "ogg-json":
		if cfg.Message, err = formats.Builtin().Open(opts, "format"); err != nil {
			return cfg, err
		}
	case "orc":
		// Flink's orc format; Go has no maintained ORC implementation yet.
		return cfg, errors.New("not supported yet: the 'orc' format (there is no maintained Go ORC library; use 'parquet' or 'avro')")
	default:
		return cfg, fmt.Errorf("Could not find any format factory for identifier '%s' in the classpath.", cfg.Format)
	}
	return cfg, nil
}

// checkFormatTypes rejects columns the bulk formats cannot hold (Flink's
// type mappings).
func checkFormatTypes(cfg Config, schema types.Schema) error {
	switch cfg.Format {
	case "csv":
		return csv.CheckTypes(schema)
	case "parquet":
		return parquet.CheckTypes(schema)
	case "avro":
		return avro.CheckTypes(schema, cfg.Avro)
	case "arrow":
		_, err := types.ArrowSchema(schema)
		return err
	}
	return nil
}

// hidden reports names Flink's file enumeration skips.
func hidden(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

// ListFiles returns the data files under path in read order: the file
// itself, or the visible files of the directory tree sorted by path.
func ListFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("File %s does not exist or the user running Flink has insufficient permissions to access it.", path)
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != path && hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", path, err)
	}
	sort.Strings(files)
	return files, nil
}

// batchReader is what the csv and json readers have in common.
type batchReader interface {
	Next() (arrow.RecordBatch, error)
}

// Source reads the files of a filesystem table. With
// 'source.monitor-interval' (Config.MonitorInterval) it is unbounded: after
// the files that exist it lists the directory again every interval and
// reads the files it has not read yet (a file is known by its path and
// read once; it should appear atomically, by a rename, as Flink's file
// source also expects), until it is cancelled.
type Source struct {
	cfg       Config
	physical  types.Schema
	proj      []int
	batchSize int
	files     []string
	pos       filePosition // the checkpointed position (source_position.go)
	parts     *partitionReader
	// readFields is connectors.SourceSpec.ReadFields (SetReadFields);
	// filter the pushed-down conjuncts on physical columns (SetFilter);
	// stats counts the Parquet row groups read and skipped.
	readFields [][]bool
	filter     []parquet.Predicate
	stats      *parquet.Stats
}

// SetReadFields tells which fields of each projected ROW column are read
// (connectors.SourceSpec.ReadFields); the Parquet reader decodes only
// those.
func (s *Source) SetReadFields(rf [][]bool) { s.readFields = rf }

// SetFilter gives the source conjuncts on its physical columns whose
// statistics may exclude Parquet row groups (and partitions). The rows
// read are not filtered: the plan keeps the condition.
func (s *Source) SetFilter(p []parquet.Predicate) { s.filter = p }

// SetStats makes the source count the Parquet row groups it reads and
// skips into st.
func (s *Source) SetStats(st *parquet.Stats) { s.stats = st }

// pruned reports a file of a partition the filter excludes.
func (s *Source) pruned(name string) bool {
	if s.parts == nil || len(s.filter) == 0 {
		return false
	}
	vals, ok := s.parts.keyValues(s.cfg.Path, name)
	if !ok || partitionMayMatch(s.filter, vals) {
		return false
	}
	if s.stats != nil {
		s.stats.FilesSkipped++
	}
	return true
}

// fileFilter is the filter on the columns of the files: for a partitioned
// table, the conjuncts on data columns with their indexes in the data
// schema.
func (s *Source) fileFilter() []parquet.Predicate {
	if s.parts == nil || len(s.filter) == 0 {
		return s.filter
	}
	var out []parquet.Predicate
	for _, p := range s.filter {
		if q, ok := s.parts.toData(p); ok {
			out = append(out, q)
		}
	}
	return out
}

// NewSource returns a source of the projected columns (nil: all) of a
// table with physical schema physical, emitting batchSize rows per batch.
// The partition columns of a partitioned table (Config.PartitionKeys) come
// from the directory names (`key=value`), the other columns from the
// files.
func NewSource(cfg Config, physical types.Schema, projection []int, batchSize int) (*Source, error) {
	if batchSize <= 0 {
		batchSize = vectorized.DefaultBatchSize
	}
	if err := checkFormatTypes(cfg, physical); err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, physical: physical, proj: projection, batchSize: batchSize}
	if len(cfg.PartitionKeys) > 0 {
		pr, err := newPartitionReader(cfg, physical, projection)
		if err != nil {
			return nil, err
		}
		s.parts = pr
	}
	return s, nil
}

// Unbounded reports whether the source monitors its directory.
func (s *Source) Unbounded() bool { return s.cfg.MonitorInterval > 0 }

// Open lists the files to read.
func (s *Source) Open(ctx context.Context) error {
	files, err := ListFiles(s.cfg.Path)
	if err != nil {
		return err
	}
	s.files = files
	return nil
}

// Run emits the rows of every file in order; a monitoring source then
// lists the directory every interval and reads the new files, until ctx
// is cancelled.
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	for {
		for _, name := range s.files {
			if s.pos.isFinished(name) {
				continue // read before (or before the restored checkpoint)
			}
			if s.pruned(name) {
				continue
			}
			s.pos.begin(name)
			if err := s.runFile(ctx, name, out); err != nil {
				return err
			}
			s.pos.finish(name)
		}
		if s.cfg.MonitorInterval <= 0 {
			return nil
		}
		// Through the collector: a silent source is marked idle while it
		// waits (vectorized/idle.go).
		if err := vectorized.Sleep(ctx, out, s.cfg.MonitorInterval); err != nil {
			return err
		}
		files, err := ListFiles(s.cfg.Path)
		if err != nil {
			return err
		}
		s.files = files
	}
}

func (s *Source) runFile(ctx context.Context, name string, out vectorized.Collector) error {
	physical, proj, readFields := s.physical, s.proj, s.readFields
	var consts []*constCol // the partition columns' values of this file
	if s.parts != nil {
		var err error
		if consts, err = s.parts.values(s.cfg.Path, name); err != nil {
			return err
		}
		physical, proj, readFields = s.parts.data, s.parts.dataProj, s.parts.dataReadFields(s.readFields)
	}
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("opening %s: %w", name, err)
	}
	defer f.Close()
	var rd batchReader
	switch s.cfg.Format {
	case "parquet":
		pr, perr := parquet.NewReader(f, name, parquet.ReadSpec{Physical: physical, Projection: proj,
			ReadFields: readFields, BatchSize: s.batchSize, Filter: s.fileFilter(), Stats: s.stats}, s.cfg.Parquet)
		if perr != nil {
			return perr
		}
		defer pr.Close()
		rd = pr
	case "arrow":
		st, serr := f.Stat()
		if serr != nil {
			return fmt.Errorf("reading %s: %w", name, serr)
		}
		ar, aerr := arrowipc.NewReader(f, st.Size(), name, physical, proj)
		if aerr != nil {
			return aerr
		}
		defer ar.Close()
		rd = ar
	case "avro":
		if rd, err = avro.NewReader(bufio.NewReaderSize(f, 256<<10), name, physical, proj, s.batchSize); err != nil {
			return err
		}
	default:
		r, cerr := decompress(f, name) // compress.go
		if cerr != nil {
			return cerr
		}
		defer r.Close()
		switch {
		case s.cfg.Message != nil:
			rd, err = newLineReader(r, name, physical, proj, s.cfg.Message, s.batchSize) // lines.go
		case s.cfg.Format == "csv":
			rd, err = csv.NewReader(r, name, physical, proj, s.cfg.CSV, s.batchSize)
		default:
			rd, err = json.NewReader(r, name, physical, proj, s.cfg.JSON, s.batchSize)
		}
	}
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var rec arrow.RecordBatch
		var kinds []changelog.RowKind
		if kr, ok := rd.(kindReader); ok {
			b, kerr := kr.NextBatch()
			rec, kinds, err = b.Rec, b.Kinds, kerr
		} else {
			rec, err = rd.Next()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// Skip the rows emitted before a restored checkpoint, and move
		// the position before Emit (a checkpoint taken inside Emit
		// records the position after this batch).
		n := int(rec.NumRows())
		if rec = s.pos.take(name, rec); rec == nil {
			continue
		}
		if kinds != nil {
			kinds = kinds[n-int(rec.NumRows()):]
		}
		if s.parts != nil {
			if rec, err = s.parts.assemble(rec, consts); err != nil {
				return err
			}
		}
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: kinds}); err != nil {
			return err
		}
	}
}

// Close releases nothing: files are closed as they are finished.
func (s *Source) Close() error { return nil }

var _ vectorized.Source = (*Source)(nil)
