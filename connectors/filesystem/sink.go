package filesystem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/connectors/filesystem/arrowipc"
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/format/avro"
	"github.com/tablerun/tablerun/connectors/format/csv"
	"github.com/tablerun/tablerun/connectors/format/json"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Defaults of the rolling policy (Flink's).
const (
	DefaultRollingFileSize  = 128 << 20
	DefaultRolloverInterval = 30 * time.Minute
)

// StatePart is the name of the sink's state part: its committables, one
// row per pending part file (file STRING: the final name, checkpoint
// BIGINT: the checkpoint that covers it).
const StatePart = "pending"

var committableSchema = arrow.NewSchema([]arrow.Field{
	{Name: "file", Type: arrow.BinaryTypes.String},
	{Name: "checkpoint", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// WritersPart is the name of the sink's state part that records, for
// every part file writer of the job's lineage (uuid STRING, subtask
// BIGINT, next BIGINT), how many part files it had started at the
// checkpoint: files it started later are rolled back on restore.
const WritersPart = "writers"

// PartitionsPart is the name of the sink's state part that records the
// partitions waiting for their commit (partition STRING: the directory
// relative to the table path, created BIGINT: when it was first written,
// ms, checkpoint BIGINT: the latest checkpoint with data of it).
const PartitionsPart = "partitions"

var partitionsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "partition", Type: arrow.BinaryTypes.String},
	{Name: "created", Type: arrow.PrimitiveTypes.Int64},
	{Name: "checkpoint", Type: arrow.PrimitiveTypes.Int64},
}, nil)

var writersSchema = arrow.NewSchema([]arrow.Field{
	{Name: "uuid", Type: arrow.BinaryTypes.String},
	{Name: "subtask", Type: arrow.PrimitiveTypes.Int64},
	{Name: "next", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// partName matches the names of our part files: visible
// `part-<uuid>-<subtask>-<n>` and hidden `.part-….inprogress|pending`.
// Groups: 1 hidden dot, 2 final name, 3 uuid, 4 subtask, 5 n, 6 suffix.
var partName = regexp.MustCompile(`^(\.?)(part-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([0-9]+)-([0-9]+))(\.inprogress|\.pending)?$`)

// parsedPart is a part file name taken apart.
type parsedPart struct {
	final   string
	uuid    string
	subtask int
	n       int64
	hidden  bool
}

func parsePartName(name string) (parsedPart, bool) {
	m := partName.FindStringSubmatch(name)
	if m == nil || (m[1] == ".") != (m[6] != "") {
		return parsedPart{}, false
	}
	sub, err1 := strconv.Atoi(m[4])
	n, err2 := strconv.ParseInt(m[5], 10, 64)
	if err1 != nil || err2 != nil {
		return parsedPart{}, false
	}
	return parsedPart{final: m[2], uuid: m[3], subtask: sub, n: n, hidden: m[1] == "."}, true
}

// writerKey identifies a part file writer (one sink instance of one run).
type writerKey struct {
	uuid    string
	subtask int
}

func parseRolling(opts map[string]string) (int64, time.Duration, error) {
	size, interval := int64(DefaultRollingFileSize), time.Duration(DefaultRolloverInterval)
	if v, ok := opts["sink.rolling-policy.file-size"]; ok {
		n, err := config.ParseMemorySize(v)
		if err != nil || n <= 0 {
			return 0, 0, fmt.Errorf("Could not parse value '%s' for key 'sink.rolling-policy.file-size'.", v)
		}
		size = n
	}
	if v, ok := opts["sink.rolling-policy.rollover-interval"]; ok {
		d, err := config.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, 0, fmt.Errorf("Could not parse value '%s' for key 'sink.rolling-policy.rollover-interval'.", v)
		}
		interval = d
	}
	return size, interval, nil
}

// batchWriter is what the format writers have in common. A bulk format's
// writer (Parquet, Avro) is also a bulkWriter.
type batchWriter interface {
	Write(rec arrow.RecordBatch) error
	Flush() error
}

// bulkWriter is a writer whose file is complete only when closed (footer,
// last block) and which buffers rows: Size is what the file would hold if
// closed now, for the rolling policy. Flink rolls bulk formats at every
// checkpoint, which this sink does for every format.
type bulkWriter interface {
	batchWriter
	Close() error
	Size() int64
}

// countingWriter counts the bytes written to a part file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// partFile is the part file in progress.
type partFile struct {
	name   string // final name, relative to the table path (`k=v/…/part-…`)
	f      *os.File
	cw     *countingWriter
	w      batchWriter
	opened time.Time
}

// pendingFile is a closed, durable, still hidden part file.
type pendingFile struct {
	name       string // final name, relative to the table path
	checkpoint int64  // the checkpoint covering it; 0 before its PreCommit
}

// Sink writes rolling part files into the table's directory. It is a
// connectors.TwoPhaseSink: exactly-once under checkpointing (see the
// package documentation).
type Sink struct {
	cfg       Config
	schema    types.Schema
	overwrite bool
	subtask   int
	uuid      string               // lineage (8 hex digits) + random rest
	next      int                  // counter of the next part file
	inherited map[writerKey]int64  // writers of earlier runs, from the restored state
	existing  []string             // visible files at Open (INSERT OVERWRITE removes them)
	cur       map[string]*partFile // the part files in progress, by partition ("": none)
	layout    *partitionLayout     // nil: not partitioned (partition.go)
	data      *arrow.Schema        // the columns written into the files
	wm        int64                // the current watermark (OnWatermark)
	dirty     map[string]int64     // partitions written since the last PreCommit: creation ms
	written   map[string]bool      // every partition written (set under mu)

	mu         sync.Mutex // guards the fields below (Commit runs concurrently with Write)
	pending    []pendingFile
	parts      map[string]pendingPart // partitions waiting for their commit
	wms        map[int64]int64        // the watermark at each checkpoint's PreCommit
	checkpoint bool                   // PreCommit or RestoreState was called
	done       bool
}

// pendingPart is a partition waiting for its commit.
type pendingPart struct {
	created    int64 // wall clock ms when it was first written
	checkpoint int64 // the latest checkpoint with data of it
}

// NewSink returns the sink instance subtask writing rows of schema into
// cfg.Path.
func NewSink(cfg Config, schema types.Schema, overwrite bool, subtask int) (*Sink, error) {
	if st, err := os.Stat(cfg.Path); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("not supported yet: writing into '%s', an existing file: the filesystem sink writes part files into a directory", cfg.Path)
	}
	if err := checkFormatTypes(cfg, schema); err != nil {
		return nil, err
	}
	if subtask < 0 {
		return nil, fmt.Errorf("filesystem sink: invalid subtask %d", subtask)
	}
	if cfg.RollingFileSize <= 0 {
		cfg.RollingFileSize = DefaultRollingFileSize
	}
	if cfg.RolloverInterval <= 0 {
		cfg.RolloverInterval = DefaultRolloverInterval
	}
	s := &Sink{cfg: cfg, schema: schema, overwrite: overwrite, subtask: subtask, cur: map[string]*partFile{},
		wm: math.MinInt64, dirty: map[string]int64{}, written: map[string]bool{},
		parts: map[string]pendingPart{}, wms: map[int64]int64{}}
	data := schema
	if len(cfg.PartitionKeys) > 0 {
		l, err := newPartitionLayout(cfg, schema)
		if err != nil {
			return nil, err
		}
		s.layout, data = l, l.data
	}
	as, err := types.ArrowSchema(data)
	if err != nil {
		return nil, err
	}
	s.data = as
	return s, nil
}

// uuid returns a random version 4 UUID; a non-empty lineage (8 hex
// digits) replaces its first group. The sink instances of a job that
// restore from a checkpoint keep the lineage of the restored state, so
// that a restore can roll back exactly the files of this job written after
// the checkpoint.
func uuid(lineage string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	if lineage != "" {
		h = lineage + h[8:]
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// inProgressPath, pendingPath and finalPath place the part file of
// relative name (`k=v/…/part-…` or `part-…`) in the table's directory.
func (s *Sink) inProgressPath(name string) string {
	dir, base := path.Split(name)
	return filepath.Join(s.cfg.Path, filepath.FromSlash(dir), "."+base+".inprogress")
}

func (s *Sink) pendingPath(name string) string {
	dir, base := path.Split(name)
	return filepath.Join(s.cfg.Path, filepath.FromSlash(dir), "."+base+".pending")
}

func (s *Sink) finalPath(name string) string {
	return filepath.Join(s.cfg.Path, filepath.FromSlash(name))
}

// Open creates the directory.
func (s *Sink) Open(ctx context.Context) error {
	if err := os.MkdirAll(s.cfg.Path, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", s.cfg.Path, err)
	}
	s.uuid = uuid("")
	if s.overwrite && s.layout == nil {
		entries, err := os.ReadDir(s.cfg.Path)
		if err != nil {
			return fmt.Errorf("listing %s: %w", s.cfg.Path, err)
		}
		for _, e := range entries {
			if !hidden(e.Name()) {
				s.existing = append(s.existing, e.Name())
			}
		}
	}
	return nil
}

// Write appends a batch to the part file in progress (created with the
// first row) and rolls it when the rolling policy says so. A partitioned
// table writes each run of rows of one partition into that partition's
// part file, without the partition columns.
func (s *Sink) Write(ctx context.Context, b vectorized.Batch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if s.layout == nil {
		return s.writeTo("", b.Rec, b.Kinds)
	}
	dirs := s.layout.dirsOf(b.Rec)
	rec := s.layout.dataRecord(b.Rec, s.data)
	defer rec.Release()
	for i := 0; i < len(dirs); {
		j := i + 1
		for j < len(dirs) && dirs[j] == dirs[i] {
			j++
		}
		part := rec
		if i > 0 || j < len(dirs) {
			part = rec.NewSlice(int64(i), int64(j))
		}
		var kinds []changelog.RowKind
		if b.Kinds != nil {
			kinds = b.Kinds[i:j]
		}
		err := s.writeTo(dirs[i], part, kinds)
		if part != rec {
			part.Release()
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// writeTo writes rows (of kinds; nil: all +I) into the part file of
// partition dir.
func (s *Sink) writeTo(dir string, rec arrow.RecordBatch, kinds []changelog.RowKind) error {
	cur := s.cur[dir]
	if cur != nil && time.Since(cur.opened) >= s.cfg.RolloverInterval {
		if err := s.roll(dir); err != nil {
			return err
		}
		cur = nil
	}
	if cur == nil {
		name := "part-" + s.uuid + "-" + strconv.Itoa(s.subtask) + "-" + strconv.Itoa(s.next)
		if dir != "" {
			name = dir + "/" + name
			if err := os.MkdirAll(filepath.Join(s.cfg.Path, filepath.FromSlash(dir)), 0o755); err != nil {
				return fmt.Errorf("creating partition %s: %w", dir, err)
			}
			if !s.written[dir] {
				s.mu.Lock() // Commit reads it
				s.written[dir] = true
				s.mu.Unlock()
			}
			if _, ok := s.dirty[dir]; !ok {
				s.dirty[dir] = time.Now().UnixMilli()
			}
		}
		tmp := s.inProgressPath(name)
		f, err := os.Create(tmp)
		if err != nil {
			return fmt.Errorf("creating %s: %w", tmp, err)
		}
		s.next++
		p := &partFile{name: name, f: f, cw: &countingWriter{w: f}, opened: time.Now()}
		switch s.cfg.Format {
		case "csv":
			p.w = csv.NewWriter(p.cw, s.dataSchema(), s.cfg.CSV)
		case "parquet":
			w, err := parquet.NewWriter(p.cw, s.dataSchema(), s.cfg.Parquet)
			if err != nil {
				_ = f.Close()
				_ = os.Remove(tmp)
				return err
			}
			p.w = w
		case "arrow":
			w, err := arrowipc.NewWriter(p.cw, s.dataSchema(), s.cfg.Arrow)
			if err != nil {
				_ = f.Close()
				_ = os.Remove(tmp)
				return err
			}
			p.w = w
		case "avro":
			w, err := avro.NewWriter(p.cw, s.dataSchema(), s.cfg.Avro)
			if err != nil {
				_ = f.Close()
				_ = os.Remove(tmp)
				return err
			}
			p.w = w
		default:
			if s.cfg.Message != nil {
				w, err := newLineWriter(p.cw, s.dataSchema(), s.cfg.Message) // lines.go
				if err != nil {
					_ = f.Close()
					_ = os.Remove(tmp)
					return err
				}
				p.w = w
			} else {
				p.w = json.NewWriter(p.cw, s.dataSchema(), s.cfg.JSON)
			}
		}
		s.cur[dir] = p
		cur = p
	} else if dir != "" {
		if _, ok := s.dirty[dir]; !ok {
			s.dirty[dir] = time.Now().UnixMilli()
		}
	}
	var err error
	if kw, ok := cur.w.(*lineWriter); ok {
		err = kw.WriteKinds(rec, kinds)
	} else {
		err = cur.w.Write(rec)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.inProgressPath(cur.name), err)
	}
	if err := cur.w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", s.inProgressPath(cur.name), err)
	}
	size := cur.cw.n
	if b, ok := cur.w.(bulkWriter); ok {
		size = b.Size()
	}
	if size >= s.cfg.RollingFileSize {
		return s.roll(dir)
	}
	return nil
}

// dataSchema is the schema of the columns in the files.
func (s *Sink) dataSchema() types.Schema {
	if s.layout != nil {
		return s.layout.data
	}
	return s.schema
}

// OnWatermark implements connectors.WatermarkSink: the partition-time
// commit trigger compares partitions with the watermark of each
// checkpoint.
func (s *Sink) OnWatermark(ctx context.Context, wm int64) error {
	if wm > s.wm {
		s.wm = wm
	}
	return nil
}

// rollAll rolls every part file in progress, in partition order.
func (s *Sink) rollAll() error {
	dirs := make([]string, 0, len(s.cur))
	for d := range s.cur {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := s.roll(d); err != nil {
			return err
		}
	}
	return nil
}

// roll closes the part file in progress of partition dir durably and
// makes it pending.
func (s *Sink) roll(dir string) error {
	p := s.cur[dir]
	if p == nil {
		return nil
	}
	delete(s.cur, dir)
	tmp := s.inProgressPath(p.name)
	var err error
	if b, ok := p.w.(bulkWriter); ok {
		err = b.Close()
	} else {
		err = p.w.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, s.pendingPath(p.name)); err != nil {
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	s.mu.Lock()
	s.pending = append(s.pending, pendingFile{name: p.name})
	s.mu.Unlock()
	return nil
}

// publish makes a pending file visible. A pending file that is gone
// while its final file exists was published before: that is fine.
func (s *Sink) publish(name string) error {
	err := os.Rename(s.pendingPath(name), s.finalPath(name))
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(s.finalPath(name)); serr == nil {
			return nil
		}
		return fmt.Errorf("committing %s: neither the pending file %s nor the final file exists", s.finalPath(name), s.pendingPath(name))
	}
	return fmt.Errorf("committing %s: %w", name, err)
}

// PreCommit rolls the part file in progress (it becomes pending, fsynced)
// and records through w every pending file not yet committed, as
// committables of checkpoint id (part StatePart), and the part file
// counters of this job's writers (part WritersPart).
func (s *Sink) PreCommit(ctx context.Context, id int64, w vectorized.StateWriter) error {
	if s.overwrite {
		return errors.New("not supported yet: INSERT OVERWRITE into a filesystem table with checkpointing (Flink does not support overwrite in streaming mode)")
	}
	if err := s.rollAll(); err != nil {
		return err
	}
	s.mu.Lock()
	s.checkpoint = true
	s.wms[id] = s.wm
	for dir, created := range s.dirty {
		pp, ok := s.parts[dir]
		if !ok {
			pp.created = created
		}
		pp.checkpoint = id
		s.parts[dir] = pp
	}
	clear(s.dirty)
	partNames := array.NewStringBuilder(memory.DefaultAllocator)
	partCreated := array.NewInt64Builder(memory.DefaultAllocator)
	partCk := array.NewInt64Builder(memory.DefaultAllocator)
	defer partNames.Release()
	defer partCreated.Release()
	defer partCk.Release()
	for _, dir := range sortedKeys(s.parts) {
		partNames.Append(dir)
		partCreated.Append(s.parts[dir].created)
		partCk.Append(s.parts[dir].checkpoint)
	}
	files := array.NewStringBuilder(memory.DefaultAllocator)
	cps := array.NewInt64Builder(memory.DefaultAllocator)
	defer files.Release()
	defer cps.Release()
	for i := range s.pending {
		if s.pending[i].checkpoint == 0 {
			s.pending[i].checkpoint = id
		}
		files.Append(s.pending[i].name)
		cps.Append(s.pending[i].checkpoint)
	}
	s.mu.Unlock()
	if err := s.syncDirs(); err != nil {
		return err
	}
	if files.Len() > 0 {
		if err := writeState(w, StatePart, committableSchema, files, cps); err != nil {
			return err
		}
	}
	if partNames.Len() > 0 {
		if err := writeState(w, PartitionsPart, partitionsSchema, partNames, partCreated, partCk); err != nil {
			return err
		}
	}
	uuids := array.NewStringBuilder(memory.DefaultAllocator)
	subs := array.NewInt64Builder(memory.DefaultAllocator)
	nexts := array.NewInt64Builder(memory.DefaultAllocator)
	defer uuids.Release()
	defer subs.Release()
	defer nexts.Release()
	keys := make([]writerKey, 0, len(s.inherited))
	for k := range s.inherited {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].uuid != keys[j].uuid {
			return keys[i].uuid < keys[j].uuid
		}
		return keys[i].subtask < keys[j].subtask
	})
	for _, k := range keys {
		uuids.Append(k.uuid)
		subs.Append(int64(k.subtask))
		nexts.Append(s.inherited[k])
	}
	uuids.Append(s.uuid)
	subs.Append(int64(s.subtask))
	nexts.Append(int64(s.next))
	return writeState(w, WritersPart, writersSchema, uuids, subs, nexts)
}

// writeState writes one batch of the builders' columns as a state part.
func writeState(w vectorized.StateWriter, part string, schema *arrow.Schema, cols ...array.Builder) error {
	arrs := make([]arrow.Array, len(cols))
	for i, b := range cols {
		arrs[i] = b.NewArray()
		defer arrs[i].Release()
	}
	rec := array.NewRecordBatch(schema, arrs, int64(arrs[0].Len()))
	defer rec.Release()
	if err := w.Write(part, rec); err != nil {
		return fmt.Errorf("filesystem sink: writing state part %s: %w", part, err)
	}
	return nil
}

// Commit publishes the pending files of every checkpoint up to id. It may
// run concurrently with Write.
func (s *Sink) Commit(ctx context.Context, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.pending[:0]
	var err error
	published := false
	for _, p := range s.pending {
		if err != nil || p.checkpoint == 0 || p.checkpoint > id {
			kept = append(kept, p)
			continue
		}
		if err = s.publish(p.name); err != nil {
			kept = append(kept, p)
			continue
		}
		published = true
	}
	s.pending = kept
	if err != nil {
		return err
	}
	if published {
		if err := s.syncDirs(); err != nil {
			return err
		}
	}
	// The watermark of the latest checkpoint up to id.
	wm, at := int64(math.MinInt64), int64(-1)
	for ck, w := range s.wms {
		if ck <= id && ck > at {
			wm, at = w, ck
		}
	}
	for ck := range s.wms {
		if ck < at {
			delete(s.wms, ck)
		}
	}
	return s.commitPartitions(func(dir string, p pendingPart) bool {
		return p.checkpoint <= id && s.committable(dir, p, wm)
	})
}

// committable reports whether the trigger lets a partition commit with
// watermark wm.
func (s *Sink) committable(dir string, p pendingPart, wm int64) bool {
	c := s.cfg.Commit
	if !c.PartitionTime {
		return time.Now().UnixMilli() > p.created+c.Delay.Milliseconds()
	}
	t, err := c.partitionTime(s.cfg.PartitionKeys, dir)
	if err != nil {
		return false // Flink fails the job here; we keep the partition uncommitted
	}
	return wm > t+c.Delay.Milliseconds()
}

// commitPartitions commits (success file) the waiting partitions ok
// selects, in path order; s.mu is held.
func (s *Sink) commitPartitions(ok func(dir string, p pendingPart) bool) error {
	for _, dir := range sortedKeys(s.parts) {
		p := s.parts[dir]
		if !ok(dir, p) {
			continue
		}
		if name := s.cfg.Commit.SuccessFile; name != "" {
			if err := writeSuccessFile(filepath.Join(s.cfg.Path, filepath.FromSlash(dir)), name); err != nil {
				return err
			}
		}
		delete(s.parts, dir)
	}
	return nil
}

// syncDirs fsyncs the table directory and its partition directories.
func (s *Sink) syncDirs() error {
	if err := syncDir(s.cfg.Path); err != nil {
		return err
	}
	for _, dir := range sortedKeys(s.written) {
		if err := syncDir(filepath.Join(s.cfg.Path, filepath.FromSlash(dir))); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RestoreState restores the sink from a checkpoint: it publishes the
// committables recorded in the checkpoint (idempotently: a file published
// before the crash is fine), then rolls back the files of this job's
// lineage that the checkpoint does not cover: hidden in-progress and
// pending files that are not committables, and visible files that a later
// checkpoint committed (when the job restores from an older checkpoint
// because the latest one is corrupt). Files of other jobs or other naming
// schemes in the directory are never touched. Files are split among the
// new instances by the subtask in their names (modulo the new
// parallelism), so that instances restoring concurrently never touch the
// same file.
func (s *Sink) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	s.mu.Lock()
	s.checkpoint = true
	s.mu.Unlock()
	parallelism := max(r.Parallelism(), 1)
	mine := func(subtask int) bool { return subtask%parallelism == r.Subtask() }

	committed := map[string]bool{}
	var publish []string
	err := r.Read(StatePart, func(rec arrow.RecordBatch) error {
		names, ok := rec.Column(0).(*array.String)
		if !ok || rec.NumCols() != 2 {
			return fmt.Errorf("filesystem sink: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < names.Len(); i++ {
			rel := names.Value(i)
			p, ok := parsePartName(path.Base(rel))
			if !ok || p.hidden {
				return fmt.Errorf("filesystem sink: unexpected committable %q", rel)
			}
			committed[rel] = true
			if mine(p.subtask) {
				publish = append(publish, rel)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	known := map[writerKey]int64{}
	lineages := map[string]bool{}
	err = r.Read(WritersPart, func(rec arrow.RecordBatch) error {
		if rec.NumCols() != 3 {
			return fmt.Errorf("filesystem sink: unexpected state schema %s", rec.Schema())
		}
		uuids, ok1 := rec.Column(0).(*array.String)
		subs, ok2 := rec.Column(1).(*array.Int64)
		nexts, ok3 := rec.Column(2).(*array.Int64)
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("filesystem sink: unexpected state schema %s", rec.Schema())
		}
		for i := 0; i < uuids.Len(); i++ {
			u := uuids.Value(i)
			if len(u) != 36 {
				return fmt.Errorf("filesystem sink: unexpected writer %q", u)
			}
			known[writerKey{u, int(subs.Value(i))}] = nexts.Value(i)
			lineages[u[:8]] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range publish {
		if err := s.publish(name); err != nil {
			return fmt.Errorf("restoring the filesystem sink: %w", err)
		}
	}
	// The partitions waiting for their commit: the first instance takes
	// them over (any instance may commit a partition).
	err = r.Read(PartitionsPart, func(rec arrow.RecordBatch) error {
		names, ok1 := rec.Column(0).(*array.String)
		created, ok2 := rec.Column(1).(*array.Int64)
		if rec.NumCols() != 3 || !ok1 || !ok2 {
			return fmt.Errorf("filesystem sink: unexpected state schema %s", rec.Schema())
		}
		if r.Subtask() != 0 {
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := 0; i < names.Len(); i++ {
			dir := names.Value(i)
			if p, ok := s.parts[dir]; !ok || created.Value(i) < p.created {
				// Waiting for the restored job's next checkpoint.
				s.parts[dir] = pendingPart{created: created.Value(i), checkpoint: 0}
			}
			s.written[dir] = true
		}
		return nil
	})
	if err != nil {
		return err
	}

	// Keep the lineage; carry the writers this instance is responsible for.
	if len(lineages) > 0 {
		ls := make([]string, 0, len(lineages))
		for l := range lineages {
			ls = append(ls, l)
		}
		sort.Strings(ls)
		s.uuid = uuid(ls[0])
	}
	s.inherited = map[writerKey]int64{}
	for k, n := range known {
		if mine(k.subtask) {
			s.inherited[k] = n
		}
	}

	files, err := s.partFiles()
	if err != nil {
		return err
	}
	for _, rel := range files {
		dir, base := path.Split(rel)
		p, ok := parsePartName(base)
		if !ok || !lineages[p.uuid[:8]] || !mine(p.subtask) || p.uuid == s.uuid {
			continue
		}
		if p.hidden {
			if committed[dir+p.final] {
				continue // its publication failed above, or another lineage's
			}
		} else if next, ok := known[writerKey{p.uuid, p.subtask}]; ok && p.n < next {
			continue // covered by the checkpoint
		}
		if err := os.Remove(filepath.Join(s.cfg.Path, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("discarding %s: %w", rel, err)
		}
	}
	return s.syncDirs()
}

// partFiles lists the names (relative, with '/') of the files in the
// table directory that may be part files: in the directory itself and,
// for a partitioned table, in its partition directories (`k=v`).
func (s *Sink) partFiles() ([]string, error) {
	var out []string
	err := filepath.WalkDir(s.cfg.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, rerr := filepath.Rel(s.cfg.Path, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p == s.cfg.Path {
				return nil
			}
			if s.layout == nil || !strings.Contains(d.Name(), "=") || hidden(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := parsePartName(d.Name()); ok {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", s.cfg.Path, err)
	}
	return out, nil
}

// Finish rolls and publishes every part file (the end of a bounded
// input); with overwrite it first removes the visible files that were in
// the directory when the sink opened.
func (s *Sink) Finish(ctx context.Context) error {
	if err := s.rollAll(); err != nil {
		return err
	}
	for _, name := range s.existing {
		if err := os.RemoveAll(filepath.Join(s.cfg.Path, name)); err != nil {
			return fmt.Errorf("overwriting %s: %w", s.cfg.Path, err)
		}
	}
	if s.overwrite && s.layout != nil {
		if err := s.overwritePartitions(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) > 0 {
		if err := s.publish(s.pending[0].name); err != nil {
			return err
		}
		s.pending = s.pending[1:]
	}
	s.done = true
	if err := s.syncDirs(); err != nil {
		return err
	}
	// The end of the input commits every partition written.
	for dir, created := range s.dirty {
		if _, ok := s.parts[dir]; !ok {
			s.parts[dir] = pendingPart{created: created}
		}
	}
	clear(s.dirty)
	return s.commitPartitions(func(string, pendingPart) bool { return true })
}

// overwritePartitions removes, from every partition this write wrote,
// the visible files of earlier writes (Flink's INSERT OVERWRITE of a
// partitioned table replaces the partitions it writes).
func (s *Sink) overwritePartitions() error {
	for _, dir := range sortedKeys(s.written) {
		full := filepath.Join(s.cfg.Path, filepath.FromSlash(dir))
		entries, err := os.ReadDir(full)
		if err != nil {
			return fmt.Errorf("overwriting %s: %w", full, err)
		}
		for _, e := range entries {
			if hidden(e.Name()) || e.IsDir() {
				continue
			}
			if p, ok := parsePartName(e.Name()); ok && p.uuid == s.uuid {
				continue
			}
			if err := os.Remove(filepath.Join(full, e.Name())); err != nil {
				return fmt.Errorf("overwriting %s: %w", full, err)
			}
		}
	}
	return nil
}

// Close removes the part file in progress; without checkpointing it also
// removes the pending files of an unfinished write. Under checkpointing,
// pending files covered by a checkpoint stay for the restored job.
func (s *Sink) Close() error {
	for dir, p := range s.cur {
		delete(s.cur, dir)
		_ = p.f.Close()
		_ = os.Remove(s.inProgressPath(p.name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	kept := s.pending[:0]
	for _, p := range s.pending {
		if s.checkpoint && p.checkpoint != 0 {
			kept = append(kept, p)
			continue
		}
		_ = os.Remove(s.pendingPath(p.name))
	}
	s.pending = kept
	return nil
}

// syncDir fsyncs a directory so that the renames in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
