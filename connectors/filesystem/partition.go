package filesystem

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Partitioned tables (PARTITIONED BY), as Flink's filesystem connector
// lays them out: a row of partition values (v1, v2) of keys (k1, k2) goes
// to the directory `k1=v1/k2=v2/` under the table's path, keys and values
// escaped as Flink's PartitionPathUtils.escapePathName does (`%` and two
// upper-case hex digits for the characters a path must not hold, so that
// '10:05' becomes `10%3A05`). A NULL or blank value is the directory value
// partition.default-name (`__DEFAULT_PARTITION__`). The files hold the
// other columns only; the source reads the partition columns back from
// the directory names.
//
// Partition commit (sink.partition-commit.*): a partition is committed
// when its data is visible and the trigger says so: 'process-time' (the
// default) when the wall clock passed the partition's creation plus
// sink.partition-commit.delay, 'partition-time' when the watermark passed
// the time extracted from the partition values
// (partition.time-extractor.timestamp-pattern, e.g. '$dt $hm:00', in
// sink.partition-commit.watermark-time-zone) plus the delay. As in Flink
// this is checked when a checkpoint completes (with the watermark the sink
// had at that checkpoint's barrier), and at the end of a bounded input
// every written partition is committed. The 'success-file' policy writes
// an empty file named sink.partition-commit.success-file.name (`_SUCCESS`)
// into the partition directory; readers skip it (its name starts with
// '_'). Unlike Flink, which commits in one committer task with the
// minimum watermark of all writer subtasks, each parallel sink instance
// commits the partitions it wrote, with its own watermark, when its
// checkpoint completes: with several instances a success file may appear
// before another instance's files of the same partition are published.
// The partitions waiting for their commit are part of the sink's
// checkpointed state (PartitionsPart).

// DefaultPartitionName is Flink's partition.default-name.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// PartitionCommit is the sink's partition commit configuration.
type PartitionCommit struct {
	// PartitionTime selects the 'partition-time' trigger (false:
	// 'process-time').
	PartitionTime bool
	// Delay is sink.partition-commit.delay.
	Delay time.Duration
	// SuccessFile is the name of the success file; "" when the policy
	// kind does not include 'success-file' (nothing is committed).
	SuccessFile string
	// Pattern is partition.time-extractor.timestamp-pattern ("": the
	// first partition value is the timestamp).
	Pattern string
	// Zone is sink.partition-commit.watermark-time-zone (UTC by default).
	Zone *time.Location
}

// commitOptions are the partition commit keys the connector understands.
var commitOptions = []string{
	"sink.partition-commit.trigger", "sink.partition-commit.delay",
	"sink.partition-commit.policy.kind", "sink.partition-commit.policy.class",
	"sink.partition-commit.success-file.name", "sink.partition-commit.watermark-time-zone",
	"partition.time-extractor.kind", "partition.time-extractor.class",
	"partition.time-extractor.timestamp-pattern", "partition.time-extractor.timestamp-formatter",
}

// parseCommit reads the partition commit options.
func parseCommit(opts map[string]string) (PartitionCommit, error) {
	c := PartitionCommit{Zone: time.UTC}
	switch v := opts["sink.partition-commit.trigger"]; v {
	case "", "process-time":
	case "partition-time":
		c.PartitionTime = true
	default:
		return c, fmt.Errorf("Unsupported partition commit trigger: %s", v)
	}
	if v, ok := opts["sink.partition-commit.delay"]; ok {
		d, err := config.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("Could not parse value '%s' for key 'sink.partition-commit.delay'.", v)
		}
		c.Delay = d
	}
	if v := strings.TrimSpace(opts["sink.partition-commit.policy.kind"]); v != "" {
		for _, kind := range strings.Split(v, ",") {
			switch k := strings.ToLower(strings.TrimSpace(kind)); k {
			case "success-file":
				c.SuccessFile = "_SUCCESS"
			case "metastore":
				return c, fmt.Errorf("not supported yet: the partition commit policy 'metastore' (there is no metastore for filesystem tables)")
			case "custom":
				return c, fmt.Errorf("not supported yet: the partition commit policy 'custom'")
			default:
				return c, fmt.Errorf("Unsupported commit policy type %s", k)
			}
		}
	}
	if v, ok := opts["sink.partition-commit.success-file.name"]; ok && c.SuccessFile != "" {
		c.SuccessFile = v
	}
	if v, ok := opts["partition.time-extractor.kind"]; ok && v != "default" {
		return c, fmt.Errorf("not supported yet: partition.time-extractor.kind '%s'", v)
	}
	if v, ok := opts["partition.time-extractor.timestamp-formatter"]; ok && v != "yyyy-MM-dd HH:mm:ss" {
		return c, fmt.Errorf("not supported yet: partition.time-extractor.timestamp-formatter '%s'", v)
	}
	c.Pattern = opts["partition.time-extractor.timestamp-pattern"]
	if v, ok := opts["sink.partition-commit.watermark-time-zone"]; ok {
		loc, err := time.LoadLocation(v)
		if err != nil {
			return c, fmt.Errorf("The supported watermark time zone is either a full name such as 'America/Los_Angeles', or a custom time zone id such as 'GMT-08:00', but configured time zone is '%s'.", v)
		}
		c.Zone = loc
	}
	return c, nil
}

// partitionTime extracts the time of a partition (its directory path
// relative to the table, `k1=v1/k2=v2`) as epoch milliseconds in the
// commit zone, as Flink's default partition time extractor does.
func (c PartitionCommit) partitionTime(keys []string, rel string) (int64, error) {
	vals := map[string]string{}
	var first string
	for i, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		k, v = unescapePath(k), unescapePath(v)
		vals[k] = v
		if i == 0 {
			first = v
		}
	}
	text := first
	if c.Pattern != "" {
		text = c.Pattern
		// Longer keys first: $dt must not eat the start of $dtx.
		ks := append([]string{}, keys...)
		sortByLenDesc(ks)
		for _, k := range ks {
			text = strings.ReplaceAll(text, "$"+k, vals[k])
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(text), c.Zone); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("partition commit: cannot extract a timestamp from '%s' (partition %s)", text, rel)
}

func sortByLenDesc(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && len(s[j]) > len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// needsEscape reports the characters Flink escapes in partition paths.
func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	return strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0
}

// escapePath escapes a partition key or value for a directory name.
func escapePath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapePath reverses escapePath.
func unescapePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// partitionLayout maps a table's schema to its partition and data
// columns.
type partitionLayout struct {
	keys    []string
	keyCols []int        // index in the physical schema of each key
	dataCol []int        // physical indexes of the data (file) columns
	data    types.Schema // the data columns
	defName string
}

func newPartitionLayout(cfg Config, physical types.Schema) (*partitionLayout, error) {
	l := &partitionLayout{keys: cfg.PartitionKeys, defName: cfg.DefaultPartitionName}
	if l.defName == "" {
		l.defName = DefaultPartitionName
	}
	isKey := map[int]bool{}
	for _, k := range cfg.PartitionKeys {
		idx := -1
		for i, f := range physical {
			if f.Name == k {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("Partition column '%s' not defined in the table schema.", k)
		}
		l.keyCols = append(l.keyCols, idx)
		isKey[idx] = true
	}
	for i, f := range physical {
		if !isKey[i] {
			l.dataCol = append(l.dataCol, i)
			l.data = append(l.data, f)
		}
	}
	if len(l.data) == 0 {
		return nil, fmt.Errorf("not supported yet: a filesystem table whose every column is a partition column")
	}
	return l, nil
}

// dirsOf returns the partition directory (relative, `k=v/…`) of each row
// of rec (the table's physical columns).
func (l *partitionLayout) dirsOf(rec arrow.RecordBatch) []string {
	n := int(rec.NumRows())
	out := make([]string, n)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.Reset()
		for j, c := range l.keyCols {
			if j > 0 {
				b.WriteByte('/')
			}
			b.WriteString(escapePath(l.keys[j]))
			b.WriteByte('=')
			b.WriteString(escapePath(l.valueText(rec.Column(c), i)))
		}
		out[i] = b.String()
	}
	return out
}

// valueText is the directory value of row i of a partition column.
func (l *partitionLayout) valueText(a arrow.Array, i int) string {
	var v string
	switch a := a.(type) {
	case *array.String:
		if a.IsNull(i) {
			return l.defName
		}
		v = a.Value(i)
	case *array.LargeString:
		if a.IsNull(i) {
			return l.defName
		}
		v = a.Value(i)
	default:
		if a.IsNull(i) {
			return l.defName
		}
		v = a.ValueStr(i)
	}
	if strings.TrimSpace(v) == "" {
		return l.defName
	}
	return v
}

// dataRecord returns the data columns of rec.
func (l *partitionLayout) dataRecord(rec arrow.RecordBatch, schema *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, len(l.dataCol))
	for i, c := range l.dataCol {
		cols[i] = rec.Column(c)
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows())
}

// partitionReader is the partition side of a source of a partitioned
// table: the files are read with the data columns of the projection, the
// partition columns are constants per file.
type partitionReader struct {
	*partitionLayout
	physical types.Schema
	proj     []int // projection into the physical schema
	dataProj []int // projection into the data columns (non-nil)
	out      *arrow.Schema
}

func newPartitionReader(cfg Config, physical types.Schema, projection []int) (*partitionReader, error) {
	l, err := newPartitionLayout(cfg, physical)
	if err != nil {
		return nil, err
	}
	if projection == nil {
		projection = make([]int, len(physical))
		for i := range projection {
			projection[i] = i
		}
	}
	r := &partitionReader{partitionLayout: l, physical: physical, proj: projection, dataProj: []int{}}
	dataIdx := map[int]int{}
	for i, c := range l.dataCol {
		dataIdx[c] = i
	}
	fields := make(types.Schema, len(projection))
	for i, p := range projection {
		if p < 0 || p >= len(physical) {
			return nil, fmt.Errorf("filesystem: projection index %d out of range", p)
		}
		fields[i] = physical[p]
		if d, ok := dataIdx[p]; ok {
			r.dataProj = append(r.dataProj, d)
		}
	}
	if r.out, err = types.ArrowSchema(fields); err != nil {
		return nil, err
	}
	return r, nil
}

// constCol is the value of a partition column for the rows of one file.
type constCol struct {
	v  any // canonical Go value; nil: NULL
	t  types.Type
	at arrow.DataType
}

// values returns, per projected column, the partition value of file name
// (under root), or nil for a data column.
func (r *partitionReader) values(root, name string) ([]*constCol, error) {
	rel, err := filepath.Rel(root, filepath.Dir(name))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	vals := map[string]string{}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if k, v, ok := strings.Cut(seg, "="); ok {
			vals[unescapePath(k)] = unescapePath(v)
		}
	}
	out := make([]*constCol, len(r.proj))
	for i, p := range r.proj {
		key := -1
		for j, c := range r.keyCols {
			if c == p {
				key = j
			}
		}
		if key < 0 {
			continue
		}
		t := r.physical[p].Type
		text, ok := vals[r.keys[key]]
		var v any
		if ok && text != r.defName {
			if v, err = textconv.ParseScalar([]byte(text), t, textconv.SQL); err != nil {
				return nil, fmt.Errorf("reading %s: partition value '%s' of column %s: %w", name, text, r.keys[key], err)
			}
		}
		at, err := types.ArrowType(t)
		if err != nil {
			return nil, err
		}
		out[i] = &constCol{v: v, t: t, at: at}
	}
	return out, nil
}

// assemble builds the output batch from the data columns read (in
// dataProj order) and the partition constants.
func (r *partitionReader) assemble(rec arrow.RecordBatch, consts []*constCol) (arrow.RecordBatch, error) {
	defer rec.Release()
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(r.proj))
	k := 0
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for i := range r.proj {
		c := consts[i]
		if c == nil {
			cols[i] = rec.Column(k)
			k++
			continue
		}
		b := array.NewBuilder(vectorized.Mem, c.at)
		b.Reserve(n)
		for range n {
			if err := types.AppendValue(b, c.v, c.t); err != nil {
				b.Release()
				return nil, err
			}
		}
		a := b.NewArray()
		b.Release()
		made = append(made, a)
		cols[i] = a
	}
	return array.NewRecordBatch(r.out, cols, int64(n)), nil
}

// writeSuccessFile writes a partition's success file.
func writeSuccessFile(dir, name string) error {
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		return fmt.Errorf("committing partition %s: %w", dir, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("committing partition %s: %w", dir, err)
	}
	return nil
}

// toData maps a predicate on physical columns to one on the data
// columns; ok is false when it involves a partition column.
func (r *partitionReader) toData(p parquet.Predicate) (parquet.Predicate, bool) {
	if p.Or != nil {
		q := parquet.Predicate{Or: make([]parquet.Predicate, len(p.Or))}
		for i, o := range p.Or {
			d, ok := r.toData(o)
			if !ok {
				return p, false
			}
			q.Or[i] = d
		}
		return q, true
	}
	for i, c := range r.dataCol {
		if c == p.Column {
			p.Column = i
			return p, true
		}
	}
	return p, false
}

// dataReadFields maps SourceSpec.ReadFields of the projection to the data
// columns read from the files.
func (r *partitionReader) dataReadFields(rf [][]bool) [][]bool {
	if rf == nil {
		return nil
	}
	isData := map[int]bool{}
	for _, c := range r.dataCol {
		isData[c] = true
	}
	var out [][]bool
	for i, p := range r.proj {
		if isData[p] {
			var f []bool
			if i < len(rf) {
				f = rf[i]
			}
			out = append(out, f)
		}
	}
	return out
}

// keyValues returns the partition values of file name (under root) by
// physical column index, for partition pruning; ok is false when the path
// does not tell them (then the file is read).
func (r *partitionReader) keyValues(root, name string) (map[int]any, bool) {
	rel, err := filepath.Rel(root, filepath.Dir(name))
	if err != nil {
		return nil, false
	}
	vals := map[string]string{}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if k, v, ok := strings.Cut(seg, "="); ok {
			vals[unescapePath(k)] = unescapePath(v)
		}
	}
	out := map[int]any{}
	for j, c := range r.keyCols {
		text, ok := vals[r.keys[j]]
		if !ok {
			return nil, false
		}
		var v any
		if text != r.defName {
			if v, err = textconv.ParseScalar([]byte(text), r.physical[c].Type, textconv.SQL); err != nil {
				return nil, false
			}
		}
		out[c] = v
	}
	return out, true
}
