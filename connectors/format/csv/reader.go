// Package csv is Flink's 'csv' format for the filesystem connector: rows
// of delimiter-separated fields, no header line, fields in the table's
// column order.
//
// Reading streams the input through a fixed buffer (it grows only for a
// single record longer than the buffer), so memory does not depend on the
// file size. The common case, a line without quotes or escapes, is split
// by a byte loop over the buffer and integers are parsed straight from
// the bytes into typed Arrow builders.
package csv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// Options are the csv format options ('csv.field-delimiter', …).
type Options struct {
	// FieldDelimiter is 'csv.field-delimiter' (default ',').
	FieldDelimiter byte
	// QuoteCharacter is 'csv.quote-character' (default '"');
	// DisableQuoteCharacter is 'csv.disable-quote-character'.
	QuoteCharacter        byte
	DisableQuoteCharacter bool
	// AllowComments is 'csv.allow-comments': lines starting with '#' are
	// skipped.
	AllowComments bool
	// IgnoreParseErrors is 'csv.ignore-parse-errors': a field that does not
	// parse becomes NULL, a malformed row is skipped.
	IgnoreParseErrors bool
	// ArrayElementDelimiter is 'csv.array-element-delimiter' (default ";").
	ArrayElementDelimiter string
	// EscapeCharacter is 'csv.escape-character' (0: none).
	EscapeCharacter byte
	// NullLiteral is 'csv.null-literal' (nil: none; NULL is written as an
	// empty field).
	NullLiteral *string
	// WriteBigDecimalInScientificNotation is
	// 'csv.write-bigdecimal-in-scientific-notation' (default true).
	WriteBigDecimalInScientificNotation bool
	// Header is 'csv.header', tablerun's extension: each file starts with
	// a line of column names, which the reader skips and the writer
	// writes (and which names the columns of a table declared without
	// them, connectors/filesystem/infer.go).
	Header bool
}

// DefaultOptions returns Flink's defaults.
func DefaultOptions() Options {
	return Options{FieldDelimiter: ',', QuoteCharacter: '"', ArrayElementDelimiter: ";", WriteBigDecimalInScientificNotation: true}
}

const bufSize = 256 << 10

// Reader reads the rows of one csv stream into record batches.
type Reader struct {
	r       io.Reader
	name    string
	opts    Options
	mem     memory.Allocator
	schema  *arrow.Schema
	nFields int
	// colOf[j] is the parsed column of physical field j, or -1; outCol[i]
	// is the parsed column of output column i (a projection may repeat a
	// field).
	colOf  []int
	cols   []column
	outCol []int
	batch  int

	buf        []byte
	start, end int
	eof        bool
	line       int // line number of the next unread byte (1-based)

	special [256]bool
	// The slow path leaves the unescaped fields of its record in scratch,
	// field k at scratch[fs[2k]:fs[2k+1]].
	fs      []int
	nf      int // number of offsets in fs (2 per field)
	scratch []byte

	// Pending records (split, not yet parsed): offs holds 2 offsets per
	// projected column per record (-1: missing field; below -1: into
	// bscratch), recStart/recEnd/recLine locate each record for messages.
	pend                      int
	offs                      []int
	recStart, recEnd, recLine []int
	bscratch                  []byte
}

// NewReader returns a reader of r (name is used in error messages) for a
// table of physical schema physical, producing the columns listed in
// projection (nil: all), batchSize rows per batch.
func NewReader(r io.Reader, name string, physical types.Schema, projection []int, opts Options, batchSize int) (*Reader, error) {
	if projection == nil {
		projection = make([]int, len(physical))
		for i := range projection {
			projection[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = 4096
	}
	out := make(types.Schema, len(projection))
	rd := &Reader{r: r, name: name, opts: opts, mem: memory.DefaultAllocator, nFields: len(physical),
		colOf: make([]int, len(physical)), batch: batchSize, line: 1}
	if opts.Header {
		rd.r, rd.line = &headerSkipper{r: r, quote: quoteOf(opts)}, 2
	}
	for j := range rd.colOf {
		rd.colOf[j] = -1
	}
	for i, p := range projection {
		if p < 0 || p >= len(physical) {
			return nil, fmt.Errorf("csv: projection index %d out of range", p)
		}
		out[i] = physical[p]
		if rd.colOf[p] < 0 {
			c, err := newColumn(rd.mem, physical[p].Type, &rd.opts)
			if err != nil {
				return nil, err
			}
			rd.colOf[p] = len(rd.cols)
			rd.cols = append(rd.cols, c)
		}
		rd.outCol = append(rd.outCol, rd.colOf[p])
	}
	as, err := types.ArrowSchema(out)
	if err != nil {
		return nil, err
	}
	rd.schema = as
	rd.special['\n'] = true
	rd.special[opts.FieldDelimiter] = true
	if opts.EscapeCharacter != 0 {
		rd.special[opts.EscapeCharacter] = true
	}
	rd.fs = make([]int, 0, 2*len(physical)+2)
	return rd, nil
}

// Schema is the Arrow schema of the produced batches.
func (rd *Reader) Schema() *arrow.Schema { return rd.schema }

// fill reads more input, keeping the unread bytes. It grows the buffer
// only when it is full of one unfinished record.
func (rd *Reader) fill() error {
	if rd.buf == nil {
		rd.buf = make([]byte, bufSize)
	}
	if rd.start > 0 {
		n := copy(rd.buf, rd.buf[rd.start:rd.end])
		rd.start, rd.end = 0, n
	}
	if rd.end == len(rd.buf) {
		nb := make([]byte, 2*len(rd.buf))
		copy(nb, rd.buf[:rd.end])
		rd.buf = nb
	}
	for !rd.eof {
		n, err := rd.r.Read(rd.buf[rd.end:])
		rd.end += n
		if errors.Is(err, io.EOF) {
			rd.eof = true
			break
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", rd.name, err)
		}
		if n > 0 {
			break
		}
	}
	return nil
}

// Next returns the next batch, or nil and io.EOF at the end of the input.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	for _, c := range rd.cols {
		c.reserve(rd.batch)
	}
	rows, err := rd.readRecords(rd.batch)
	if err != nil {
		rd.discard()
		return nil, err
	}
	if rows == 0 {
		rd.discard()
		return nil, io.EOF
	}
	parsed := make([]arrow.Array, len(rd.cols))
	for i, c := range rd.cols {
		parsed[i] = c.finish()
	}
	arrs := make([]arrow.Array, len(rd.outCol))
	for i, c := range rd.outCol {
		arrs[i] = parsed[c]
	}
	rec := array.NewRecordBatch(rd.schema, arrs, int64(rows))
	for _, a := range parsed {
		a.Release()
	}
	return rec, nil
}

func (rd *Reader) discard() {
	for _, c := range rd.cols {
		c.finish().Release()
	}
}

// readRecords appends up to max rows and returns how many it appended
// (fewer only at the end of the input). Blank lines, comments and, with
// ignore-parse-errors, malformed rows are skipped without counting.
//
// It works in two phases. Splitting scans records and stores the offsets
// of the projected fields of each pending record; parsing then converts
// the pending records column by column in type-specialised loops. Parsing
// runs whenever the batch is full or the buffer must be refilled (the
// offsets point into the buffer).
func (rd *Reader) readRecords(max int) (int, error) {
	rows := 0
	sp := &rd.special
	delim := rd.opts.FieldDelimiter
	quote := rd.opts.QuoteCharacter
	checkQuote := !rd.opts.DisableQuoteCharacter
	stride := 2 * len(rd.cols)
	colOf := rd.colOf
	nFields := rd.nFields
	const lo8, hi8 = 0x0101010101010101, 0x8080808080808080
	swar := rd.opts.EscapeCharacter == 0
	dPat, nlPat := lo8*uint64(delim), uint64(lo8*'\n')
	for rows+rd.pend < max {
		if rd.start >= rd.end {
			n, err := rd.parsePending()
			rows += n
			if err != nil || rd.eof {
				return rows, err
			}
			if err := rd.fill(); err != nil {
				return rows, err
			}
			continue
		}
		// Fast path: a line without quotes or escapes, split in place.
		b := rd.buf[:rd.end]
		i := rd.start
		fieldStart := i
		nf := 0
		rec := rd.pend
		if need := (rec + 1) * stride; need > len(rd.offs) {
			rd.grow(need)
		}
		offs := rd.offs[rec*stride : (rec+1)*stride]
		complete, slow := false, false
		for {
			if checkQuote && i < len(b) && b[i] == quote {
				slow = true
				break
			}
			// Find the next delimiter or line break, 8 bytes at a time
			// (SWAR: a byte equal to the pattern becomes zero, and
			// (x-0x01…)&^x&0x80… flags the lowest zero byte exactly).
			if swar {
				for i+8 <= len(b) {
					w := binary.LittleEndian.Uint64(b[i:])
					x, y := w^dPat, w^nlPat
					if m := ((x-lo8)&^x | (y-lo8)&^y) & hi8; m != 0 {
						i += bits.TrailingZeros64(m) >> 3
						goto found
					}
					i += 8
				}
			}
			for i < len(b) && !sp[b[i]] {
				i++
			}
		found:
			if i >= len(b) {
				if rd.eof {
					end := i
					if end > fieldStart && b[end-1] == '\r' {
						end--
					}
					if nf < nFields {
						if c := colOf[nf]; c >= 0 {
							offs[2*c], offs[2*c+1] = fieldStart, end
						}
					}
					nf++
					complete = true
				}
				break
			}
			c := b[i]
			if c == delim {
				if nf < nFields {
					if c := colOf[nf]; c >= 0 {
						offs[2*c], offs[2*c+1] = fieldStart, i
					}
				}
				nf++
				i++
				fieldStart = i
				continue
			}
			if c == '\n' {
				end := i
				if end > fieldStart && b[end-1] == '\r' {
					end--
				}
				if nf < nFields {
					if c := colOf[nf]; c >= 0 {
						offs[2*c], offs[2*c+1] = fieldStart, end
					}
				}
				nf++
				i++
				complete = true
				break
			}
			slow = true // the escape character
			break
		}
		if !complete && !slow {
			// The record continues past the buffer.
			n, err := rd.parsePending()
			rows += n
			if err != nil {
				return rows, err
			}
			if err := rd.fill(); err != nil {
				return rows, err
			}
			continue
		}
		if slow {
			consumed, complete, quoted, err := rd.splitSlow()
			if err == nil && !complete {
				n, err := rd.parsePending()
				rows += n
				if err != nil {
					return rows, err
				}
				if err := rd.fill(); err != nil {
					return rows, err
				}
				continue
			}
			startLine := rd.line - rd.linesIn(consumed)
			raw := rd.buf[rd.start : rd.start+consumed]
			if err != nil {
				if rd.opts.IgnoreParseErrors {
					rd.start += consumed
					continue
				}
				n, perr := rd.parsePending()
				rows += n
				if perr != nil {
					return rows, perr
				}
				return rows, rd.rowError(startLine, raw, err)
			}
			fs := rd.fs[:rd.nf]
			nf = len(fs) / 2
			if !quoted && nf == 1 && fs[0] == fs[1] || rd.opts.AllowComments && raw[0] == '#' {
				rd.start += consumed
				continue
			}
			if nf != nFields && !rd.opts.IgnoreParseErrors {
				n, perr := rd.parsePending()
				rows += n
				if perr != nil {
					return rows, perr
				}
				return rows, rd.rowError(startLine, raw, fmt.Errorf("Row length mismatch. %d fields expected but was %d.", nFields, nf))
			}
			// Copy the unescaped fields to the batch scratch; their offsets
			// are stored as -2 - offset to tell them apart.
			for k := range offs {
				offs[k] = -1
			}
			for j := 0; j < nf && j < nFields; j++ {
				if c := colOf[j]; c >= 0 {
					s0 := len(rd.bscratch)
					rd.bscratch = append(rd.bscratch, rd.scratch[fs[2*j]:fs[2*j+1]]...)
					offs[2*c], offs[2*c+1] = -2-s0, -2-len(rd.bscratch)
				}
			}
			rd.addPending(rd.start, rd.start+consumed, startLine)
			rd.start += consumed
			continue
		}
		// A complete fast record.
		startLine := rd.line
		rd.line++
		if nf == 1 && i-rd.start <= 2 && (b[rd.start] == '\n' || b[rd.start] == '\r') ||
			rd.opts.AllowComments && b[rd.start] == '#' {
			rd.start = i
			continue
		}
		if nf != nFields && !rd.opts.IgnoreParseErrors {
			n, perr := rd.parsePending()
			rows += n
			if perr != nil {
				return rows, perr
			}
			return rows, rd.rowError(startLine, b[rd.start:i], fmt.Errorf("Row length mismatch. %d fields expected but was %d.", nFields, nf))
		}
		for j := nf; j < nFields; j++ {
			if c := colOf[j]; c >= 0 {
				offs[2*c], offs[2*c+1] = -1, -1
			}
		}
		rd.addPending(rd.start, i, startLine)
		rd.start = i
	}
	n, err := rd.parsePending()
	return rows + n, err
}

// linesIn counts the line breaks in the next n unread bytes.
func (rd *Reader) linesIn(n int) int {
	return bytes.Count(rd.buf[rd.start:rd.start+n], []byte{'\n'})
}

func (rd *Reader) grow(need int) {
	n := 2 * len(rd.offs)
	if n < need {
		n = need
	}
	o := make([]int, n)
	copy(o, rd.offs)
	rd.offs = o
}

func (rd *Reader) addPending(start, end, line int) {
	if rd.pend == len(rd.recLine) {
		rd.recStart = append(rd.recStart, start)
		rd.recEnd = append(rd.recEnd, end)
		rd.recLine = append(rd.recLine, line)
	} else {
		rd.recStart[rd.pend], rd.recEnd[rd.pend], rd.recLine[rd.pend] = start, end, line
	}
	rd.pend++
}

// parsePending converts the pending records into the column builders and
// returns how many rows it appended. On a field that does not parse it
// reports the first bad record in input order (unless ignoring errors:
// the field becomes NULL).
func (rd *Reader) parsePending() (int, error) {
	n := rd.pend
	if n == 0 {
		return 0, nil
	}
	stride := 2 * len(rd.cols)
	errRow := n
	var firstErr error
	for c, col := range rd.cols {
		if r, err := rd.parseColumn(col, c, stride, errRow); err != nil {
			errRow, firstErr = r, err
		}
	}
	rd.pend = 0
	rd.bscratch = rd.bscratch[:0]
	if firstErr != nil {
		raw := rd.buf[rd.recStart[errRow]:rd.recEnd[errRow]]
		return 0, rd.rowError(rd.recLine[errRow], raw, firstErr)
	}
	return n, nil
}

// field returns the text of column c of pending record r, and false for a
// missing field.
func (rd *Reader) field(r, c, stride int) ([]byte, bool) {
	s, e := rd.offs[r*stride+2*c], rd.offs[r*stride+2*c+1]
	if s == -1 {
		return nil, false
	}
	if s < -1 {
		return rd.bscratch[-2-s : -2-e], true
	}
	return rd.buf[s:e], true
}

// parseColumn appends column c of the pending records before row limit.
// It returns the row and error of the first field that does not parse.
func (rd *Reader) parseColumn(col column, c, stride, limit int) (int, error) {
	ignore := rd.opts.IgnoreParseErrors
	nullLit := rd.opts.NullLiteral
	if ic, ok := col.(*int64Col); ok && nullLit == nil {
		// The hot loop of the benchmark: BIGINT fields.
		offs, buf := rd.offs, rd.buf
		for r := 0; r < limit; r++ {
			s, e := offs[r*stride+2*c], offs[r*stride+2*c+1]
			if s >= 0 && ic.valid == nil {
				if v, ok := parseUint(buf[s:e]); ok {
					ic.vals[ic.n] = v
					ic.n++
					continue
				}
			}
			f, present := rd.field(r, c, stride)
			if !present {
				ic.null()
				continue
			}
			if err := ic.add(f); err != nil {
				if !ignore {
					return r, err
				}
				ic.null()
			}
		}
		return limit, nil
	}
	if nullLit == nil {
		// Type-specialised loops over fields split in place: no interface
		// call per field.
		offs, buf := rd.offs, rd.buf
		switch tc := col.(type) {
		case *decimalCol:
			p, sc := tc.t.Precision, tc.t.Scale
			r := 0
			for ; r < limit; r++ {
				s, e := offs[r*stride+2*c], offs[r*stride+2*c+1]
				if s < 0 || tc.valid != nil {
					break
				}
				v, fits, ok := textconv.ParseDecimalInt64(buf[s:e], p, sc)
				if !ok || !fits {
					break
				}
				tc.vals[2*tc.n], tc.vals[2*tc.n+1] = uint64(v), uint64(v>>63)
				tc.n++
			}
			return rd.parseRest(col, c, stride, r, limit)
		case *int32Col:
			r := 0
			for ; r < limit; r++ {
				s, e := offs[r*stride+2*c], offs[r*stride+2*c+1]
				if s < 0 || tc.valid != nil {
					break
				}
				v, ok := parseUint(buf[s:e])
				if !ok || v > math.MaxInt32 {
					break
				}
				tc.vals[tc.n] = int32(v)
				tc.n++
			}
			return rd.parseRest(col, c, stride, r, limit)
		case *dateCol:
			r := 0
			for ; r < limit; r++ {
				s, e := offs[r*stride+2*c], offs[r*stride+2*c+1]
				if s < 0 || tc.valid != nil {
					break
				}
				v, ok := textconv.ParseDateISO(buf[s:e])
				if !ok {
					break
				}
				tc.vals[tc.n] = v
				tc.n++
			}
			return rd.parseRest(col, c, stride, r, limit)
		case *stringCol:
			r := 0
			for ; r < limit; r++ {
				s, e := offs[r*stride+2*c], offs[r*stride+2*c+1]
				if s < 0 || tc.valid != nil {
					break
				}
				tc.data = append(tc.data, buf[s:e]...)
				tc.n++
				tc.offs[tc.n] = int32(len(tc.data))
			}
			return rd.parseRest(col, c, stride, r, limit)
		}
	}
	return rd.parseRest(col, c, stride, 0, limit)
}

// parseRest appends column c of pending records from..limit-1 through
// the column's add, the general path (NULL literals, missing fields,
// text the fast loops leave).
func (rd *Reader) parseRest(col column, c, stride, from, limit int) (int, error) {
	ignore := rd.opts.IgnoreParseErrors
	nullLit := rd.opts.NullLiteral
	for r := from; r < limit; r++ {
		f, present := rd.field(r, c, stride)
		if !present || nullLit != nil && string(f) == *nullLit {
			col.null()
			continue
		}
		if err := col.add(f); err != nil {
			if !ignore {
				return r, err
			}
			col.null()
		}
	}
	return limit, nil
}

func (rd *Reader) rowError(line int, raw []byte, err error) error {
	for len(raw) > 0 && (raw[len(raw)-1] == '\n' || raw[len(raw)-1] == '\r') {
		raw = raw[:len(raw)-1]
	}
	return fmt.Errorf("Failed to deserialize CSV row '%s' at %s:%d: %w", raw, rd.name, line, err)
}

// splitSlow handles quoted fields (with doubled quotes and embedded line
// breaks) and the escape character. Unescaped field text goes to scratch.
func (rd *Reader) splitSlow() (consumed int, complete, quoted bool, err error) {
	buf := rd.buf[rd.start:rd.end]
	delim := rd.opts.FieldDelimiter
	quote := rd.opts.QuoteCharacter
	checkQuote := !rd.opts.DisableQuoteCharacter
	esc := rd.opts.EscapeCharacter
	rd.scratch = rd.scratch[:0]
	rd.fs = rd.fs[:0]
	lines := 0
	i := 0
	fieldStart := 0
	inQuotes := false
	atStart := true
	finish := func() {
		rd.fs = append(rd.fs, fieldStart, len(rd.scratch))
		rd.nf = len(rd.fs)
		fieldStart = len(rd.scratch)
		atStart = true
	}
	for i < len(buf) {
		c := buf[i]
		switch {
		case inQuotes:
			switch {
			case esc != 0 && c == esc && i+1 < len(buf):
				rd.scratch = append(rd.scratch, buf[i+1])
				i += 2
				continue
			case esc != 0 && c == esc:
				i++ // wait for more input below
				continue
			case c == quote:
				if i+1 < len(buf) && buf[i+1] == quote {
					rd.scratch = append(rd.scratch, quote)
					i += 2
					continue
				}
				if i+1 >= len(buf) && !rd.eof {
					return 0, false, true, nil
				}
				inQuotes = false
				i++
				continue
			case c == '\n':
				lines++
			}
			rd.scratch = append(rd.scratch, c)
			i++
		case checkQuote && c == quote && atStart:
			inQuotes = true
			quoted = true
			atStart = false
			i++
		case esc != 0 && c == esc:
			if i+1 >= len(buf) {
				if !rd.eof {
					return 0, false, true, nil
				}
				i++
				continue
			}
			rd.scratch = append(rd.scratch, buf[i+1])
			atStart = false
			i += 2
		case c == delim:
			finish()
			i++
		case c == '\n':
			if n := len(rd.scratch); n > fieldStart && rd.scratch[n-1] == '\r' {
				rd.scratch = rd.scratch[:n-1]
			}
			finish()
			rd.setFields()
			rd.line += lines + 1
			return i + 1, true, quoted, nil
		default:
			rd.scratch = append(rd.scratch, c)
			atStart = false
			i++
		}
	}
	if !rd.eof {
		return 0, false, quoted, nil
	}
	if inQuotes {
		rd.line += lines
		return len(buf), true, quoted, errors.New("Unexpected end-of-input: expected close marker for quoted field")
	}
	if n := len(rd.scratch); n > fieldStart && rd.scratch[n-1] == '\r' {
		rd.scratch = rd.scratch[:n-1]
	}
	finish()
	rd.setFields()
	rd.line += lines
	return len(buf), true, quoted, nil
}

func (rd *Reader) setFields() { rd.nf = len(rd.fs) }

// quoteOf is the quote character of opts (0: quoting disabled).
func quoteOf(opts Options) byte {
	if opts.DisableQuoteCharacter {
		return 0
	}
	return opts.QuoteCharacter
}

// headerSkipper drops the first record of r (through its line break
// outside quotes): the header line of 'csv.header'.
type headerSkipper struct {
	r       io.Reader
	quote   byte
	done    bool
	inQuote bool
}

func (h *headerSkipper) Read(p []byte) (int, error) {
	for !h.done {
		n, err := h.r.Read(p)
		for i := 0; i < n; i++ {
			switch c := p[i]; {
			case h.quote != 0 && c == h.quote:
				h.inQuote = !h.inQuote
			case c == '\n' && !h.inQuote:
				h.done = true
				return copy(p, p[i+1:n]), err
			}
		}
		if err != nil {
			return 0, err
		}
	}
	return h.r.Read(p)
}
