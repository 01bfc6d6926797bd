package filesystem

import (
	"bufio"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/connectors/filesystem/arrowipc"
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/format/avro"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// Schema inference, tablerun's extension for explorers: a filesystem
// table declared without columns gets the columns of its first file
// (in read order, ListFiles) when CREATE TABLE runs — the schema stored
// in Parquet, Avro and Arrow files, and for csv with 'csv.header' the
// header's names with types inferred from the first inferSampleRows rows.
// The inferred columns are the table's from then on (DESCRIBE, SHOW
// CREATE TABLE), as if they had been written.

// inferSampleRows is how many csv rows type inference reads.
const inferSampleRows = 1000

// CanInferSchema reports whether a table with these options can be
// declared without columns.
func CanInferSchema(opts map[string]string) bool {
	switch opts["format"] {
	case "parquet", "avro", "arrow":
		return true
	case "csv":
		return strings.EqualFold(opts["csv.header"], "true")
	}
	return false
}

// InferSchema returns the columns of the table's first file.
func InferSchema(opts map[string]string) (types.Schema, error) {
	cfg, err := ParseConfig(opts)
	if err != nil {
		return nil, err
	}
	if !CanInferSchema(opts) {
		if cfg.Format == "csv" {
			return nil, fmt.Errorf("a csv table without columns needs 'csv.header' = 'true' (its header names the columns)")
		}
		return nil, fmt.Errorf("the format '%s' does not describe its columns: declare them (schema inference reads parquet, avro, arrow and csv with 'csv.header')", cfg.Format)
	}
	files, err := ListFiles(cfg.Path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("cannot infer the columns of a table without columns: no file under %s", cfg.Path)
	}
	name := files[0]
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	defer f.Close()
	var s types.Schema
	switch cfg.Format {
	case "parquet":
		s, err = parquet.FileSchema(f, name)
	case "arrow":
		st, serr := f.Stat()
		if serr != nil {
			return nil, fmt.Errorf("reading %s: %w", name, serr)
		}
		s, err = arrowipc.FileSchema(f, st.Size(), name)
	case "avro":
		s, err = avro.FileSchema(bufio.NewReader(f), name)
	case "csv":
		r, derr := decompress(f, name)
		if derr != nil {
			return nil, derr
		}
		defer r.Close()
		s, err = inferCSV(r, name, cfg)
	}
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("cannot infer the columns of a table without columns: %s has none", name)
	}
	seen := map[string]bool{}
	for _, c := range s {
		if seen[strings.ToLower(c.Name)] {
			return nil, fmt.Errorf("cannot infer the columns of a table without columns: %s has the column name '%s' twice", name, c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
	}
	return s, nil
}

// inferCSV reads the header and a sample: a column is BIGINT when every
// non-empty value of the sample is an integer, DOUBLE when a number,
// BOOLEAN when true/false, DATE when yyyy-MM-dd, TIMESTAMP(3) or (6)
// when yyyy-MM-dd HH:mm:ss[.f], STRING otherwise (and when the sample
// holds no value); every column is nullable.
func inferCSV(r io.Reader, name string, cfg Config) (types.Schema, error) {
	cr := stdcsv.NewReader(r)
	cr.Comma = rune(cfg.CSV.FieldDelimiter)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	if cfg.CSV.AllowComments {
		cr.Comment = '#'
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("cannot infer the columns of a table without columns: %s is empty (no header line)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the header of %s: %w", name, err)
	}
	cols := make([]csvGuess, len(header))
	out := make(types.Schema, len(header))
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if h == "" {
			h = "f" + strconv.Itoa(i)
		}
		out[i].Name = h
		cols[i] = csvGuess{integer: true, number: true, boolean: true, date: true, ts: true}
	}
	for n := 0; n < inferSampleRows; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		for i := range cols {
			if i < len(rec) {
				cols[i].see(rec[i], cfg.CSV.NullLiteral)
			}
		}
	}
	for i, g := range cols {
		out[i].Type = g.result()
	}
	return out, nil
}

// csvGuess narrows one column's type over the sample.
type csvGuess struct {
	values                             bool
	integer, number, boolean, date, ts bool
	fraction                           int // digits of second fractions seen
}

func (g *csvGuess) see(v string, null *string) {
	if v == "" || (null != nil && v == *null) {
		return
	}
	g.values = true
	b := []byte(strings.TrimSpace(v))
	if g.integer {
		if _, err := strconv.ParseInt(string(b), 10, 64); err != nil {
			g.integer = false
		}
	}
	if g.number {
		if _, err := strconv.ParseFloat(string(b), 64); err != nil {
			g.number = false
		}
	}
	if g.boolean && !strings.EqualFold(string(b), "true") && !strings.EqualFold(string(b), "false") {
		g.boolean = false
	}
	if g.date {
		if _, ok := textconv.ParseDateISO(b); !ok || len(b) != 10 {
			g.date = false
		}
	}
	if g.ts {
		if _, err := textconv.ParseTimestamp(b, textconv.SQL, false); err != nil || len(b) < 19 {
			g.ts = false
		} else if dot := strings.IndexByte(string(b), '.'); dot >= 0 {
			g.fraction = max(g.fraction, len(b)-dot-1)
		}
	}
}

func (g csvGuess) result() types.Type {
	switch {
	case !g.values:
		return types.StringT
	case g.integer:
		return types.BigIntT
	case g.number:
		return types.DoubleT
	case g.boolean:
		return types.BooleanT
	case g.date:
		return types.DateT
	case g.ts && g.fraction > 3:
		return types.TimestampOf(6)
	case g.ts:
		return types.TimestampOf(3)
	}
	return types.StringT
}
