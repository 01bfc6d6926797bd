package parquet

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/tablerun/tablerun/core/types"
)

// ReadSpec is what a scan wants of a file.
type ReadSpec struct {
	// Physical is the table's (data) schema, Projection the columns to
	// produce (nil: all), ReadFields per projected ROW column the fields
	// read (see connectors.SourceSpec).
	Physical   types.Schema
	Projection []int
	ReadFields [][]bool
	BatchSize  int
	// Filter is a conjunction of predicates on columns of Physical: a row
	// group whose statistics show that no row can satisfy all of them is
	// skipped (stats.go). Rows of the groups read are not filtered.
	Filter []Predicate
	// Stats, when set, counts the row groups read and skipped.
	Stats *Stats
}

// Stats counts what readers did.
type Stats struct {
	RowGroupsRead, RowGroupsSkipped int
	// FilesSkipped counts the files of partitions the filter excluded.
	FilesSkipped int
	// BytesRead counts the bytes read from Parquet files (footers
	// included).
	BytesRead int64
}

// countingReader counts the bytes read through ReadAt.
type countingReader struct {
	r pq.ReaderAtSeeker
	n *int64
}

func (c countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	*c.n += int64(n)
	return n, err
}

func (c countingReader) Seek(off int64, whence int) (int64, error) { return c.r.Seek(off, whence) }

// Reader reads the projected columns of one Parquet file as record batches.
type Reader struct {
	name    string
	opts    Options
	mem     memory.Allocator
	out     *arrow.Schema // the projected columns' arrow schema
	outT    types.Schema
	src     []int  // per output column: index in the read records, -1: missing
	shift   []bool // per output column: INT96 wall-clock conversion
	rr      pqarrow.RecordReader
	counts  []int64 // no column read: the row counts left to emit
	batch   int
	release func()
}

// NewReader opens a Parquet file for a scan.
func NewReader(r pq.ReaderAtSeeker, name string, spec ReadSpec, opts Options) (*Reader, error) {
	mem := memory.DefaultAllocator
	batch := spec.BatchSize
	if batch <= 0 {
		batch = 1024
	}
	proj := spec.Projection
	if proj == nil {
		proj = make([]int, len(spec.Physical))
		for i := range proj {
			proj[i] = i
		}
	}
	outT := make(types.Schema, len(proj))
	for i, p := range proj {
		outT[i] = spec.Physical[p]
	}
	out, err := types.ArrowSchema(outT)
	if err != nil {
		return nil, err
	}
	if spec.Stats != nil {
		r = countingReader{r: r, n: &spec.Stats.BytesRead}
	}
	pf, err := file.NewParquetReader(r, file.WithReadProps(pq.NewReaderProperties(mem)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batch)}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rd := &Reader{name: name, opts: opts, mem: mem, out: out, outT: outT, batch: batch,
		src: make([]int, len(proj)), shift: make([]bool, len(proj)), release: func() { pf.Close() }}
	fields := fr.Manifest.Fields
	leafSet := map[int]bool{}
	fileIdx := make([]int, len(proj))
	for i, p := range proj {
		fileIdx[i] = fieldByName(fields, spec.Physical[p].Name)
		if fileIdx[i] < 0 {
			continue
		}
		f := &fields[fileIdx[i]]
		var rf []bool
		if i < len(spec.ReadFields) {
			rf = spec.ReadFields[i]
		}
		n := len(leafSet)
		collectLeaves(f, spec.Physical[p].Type, rf, leafSet)
		if len(leafSet) == n { // nothing chosen (all fields unread): read all
			collectLeaves(f, spec.Physical[p].Type, nil, leafSet)
		}
		if f.IsLeaf() && pf.MetaData().Schema.Column(f.ColIndex).PhysicalType() == pq.Types.Int96 &&
			spec.Physical[p].Type.Kind == types.Timestamp && !opts.UTCTimezone {
			rd.shift[i] = true
		}
	}
	groups, err := selectRowGroups(pf, fields, spec)
	if err != nil {
		rd.Close()
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if spec.Stats != nil {
		spec.Stats.RowGroupsRead += len(groups)
		spec.Stats.RowGroupsSkipped += pf.NumRowGroups() - len(groups)
	}
	if len(leafSet) == 0 || len(groups) == 0 {
		for _, g := range groups {
			rd.counts = append(rd.counts, pf.MetaData().RowGroup(g).NumRows())
		}
		for i := range rd.src {
			rd.src[i] = -1
		}
		return rd, nil
	}
	leaves := make([]int, 0, len(leafSet))
	for l := range leafSet {
		leaves = append(leaves, l)
	}
	sort.Ints(leaves)
	rr, err := fr.GetRecordReader(context.Background(), leaves, groups)
	if err != nil {
		rd.Close()
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rd.rr = rr
	got := rr.Schema()
	for i := range proj {
		rd.src[i] = -1
		if fileIdx[i] < 0 {
			continue
		}
		want := fields[fileIdx[i]].Field.Name
		for j, f := range got.Fields() {
			if f.Name == want {
				rd.src[i] = j
				break
			}
		}
	}
	return rd, nil
}

// fieldByName finds a top-level field: by exact name, else ignoring case.
func fieldByName(fields []pqarrow.SchemaField, name string) int {
	for i := range fields {
		if fields[i].Field.Name == name {
			return i
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].Field.Name, name) {
			return i
		}
	}
	return -1
}

// collectLeaves adds the leaf columns of f to set; of a ROW column t only
// the fields with readFields true (nil: all) that the table declares.
func collectLeaves(f *pqarrow.SchemaField, t types.Type, readFields []bool, set map[int]bool) {
	if f.IsLeaf() {
		set[f.ColIndex] = true
		return
	}
	if t.Kind == types.Row && f.Field.Type.ID() == arrow.STRUCT {
		for i, tf := range t.Fields {
			if readFields != nil && len(readFields) == len(t.Fields) && !readFields[i] {
				continue
			}
			for j := range f.Children {
				c := &f.Children[j]
				if c.Field.Name == tf.Name || strings.EqualFold(c.Field.Name, tf.Name) {
					collectLeaves(c, tf.Type, nil, set)
					break
				}
			}
		}
		return
	}
	for j := range f.Children {
		collectLeaves(&f.Children[j], types.Type{}, nil, set)
	}
}

// Next returns the next batch of the projected columns, io.EOF at the end.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	if rd.rr == nil {
		for len(rd.counts) > 0 && rd.counts[0] == 0 {
			rd.counts = rd.counts[1:]
		}
		if len(rd.counts) == 0 {
			return nil, io.EOF
		}
		n := min(rd.counts[0], int64(rd.batch))
		rd.counts[0] -= n
		cols := make([]arrow.Array, len(rd.out.Fields()))
		for i, f := range rd.out.Fields() {
			cols[i] = array.MakeArrayOfNull(rd.mem, f.Type, int(n))
		}
		return rd.record(cols, n), nil
	}
	if !rd.rr.Next() {
		if err := rd.rr.Err(); err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s: %w", rd.name, err)
		}
		return nil, io.EOF
	}
	rec := rd.rr.RecordBatch()
	n := rec.NumRows()
	cols := make([]arrow.Array, len(rd.out.Fields()))
	for i, f := range rd.out.Fields() {
		if rd.src[i] < 0 {
			cols[i] = array.MakeArrayOfNull(rd.mem, f.Type, int(n))
			continue
		}
		c, err := Conform(rd.mem, rec.Column(rd.src[i]), f.Type)
		if err == nil && rd.shift[i] {
			s := shiftTimestamps(rd.mem, c, rd.opts.loc(), true)
			c.Release()
			c = s
		}
		if err != nil {
			for _, d := range cols[:i] {
				if d != nil {
					d.Release()
				}
			}
			return nil, fmt.Errorf("reading %s, column %s: %w", rd.name, f.Name, err)
		}
		cols[i] = c
	}
	return rd.record(cols, n), nil
}

func (rd *Reader) record(cols []arrow.Array, n int64) arrow.RecordBatch {
	rec := array.NewRecordBatch(rd.out, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// Close releases the file's readers (not the file).
func (rd *Reader) Close() error {
	if rd.rr != nil {
		rd.rr.Release()
		rd.rr = nil
	}
	if rd.release != nil {
		rd.release()
		rd.release = nil
	}
	return nil
}
