// Package datagen is Flink's 'datagen' connector: a source of generated
// rows, with Flink's option names.
//
//   - 'number-of-rows' bounds the source; a 'sequence' field bounds it
//     too (end - start + 1 rows). In batch mode an unbounded datagen table
//     is an error, as in Flink.
//   - 'rows-per-second' (default 10000) throttles the source in streaming
//     mode (bounded or not), in batches of about a tenth of a second of
//     rows; in batch mode the source runs at full speed (Flink throttles
//     both).
//   - Without 'number-of-rows' (and without a sequence field) the source is
//     unbounded: in streaming mode it runs until the job is cancelled; in
//     batch mode it is an error, as in Flink. A 'sequence' field ends the
//     source after its 'end' value.
//   - 'fields.#.kind' = 'random' (default) or 'sequence'.
//     random: 'fields.#.min' / 'fields.#.max' for numbers and intervals,
//     'fields.#.length' and 'fields.#.var-len' for VARCHAR / VARBINARY,
//     'fields.#.max-past' for timestamps (now minus up to max-past),
//     'fields.#.null-rate' (0..1). Strings are random lowercase hex
//     characters, as Flink's nextHexString.
//     sequence: 'fields.#.start' and 'fields.#.end' (both required).
//   - DATE and TIME fields (and sequence timestamps) take the current date
//     and time, as in Flink.
//   - ARRAY, MAP and ROW fields are random only; their parts take the
//     options of nested names ('fields.a.element.max', 'fields.m.key.length',
//     'fields.r.x.null-rate') and 'fields.#.length' is the collection size
//     (default 3), as in Flink.
//
// Reproducibility (our choice; Flink seeds randomly): every field draws
// from its own generator with a fixed seed derived from its position, so
// the same table definition yields the same random values on every run
// (time-based values aside).
//
// Parallel instances (split.go): at parallelism P the row stream is dealt
// out in chunks, instance k making chunks k, k+P, …; 'number-of-rows' and
// 'rows-per-second' are totals, each sequence value is made once, and the
// rows are the same at every parallelism (each instance draws, without
// building them, the random values of the other instances' rows).
package datagen

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Top-level option keys.
const (
	NumberOfRows   = "number-of-rows"
	RowsPerSecond  = "rows-per-second"
	ScanParallel   = "scan.parallelism"
	defaultRPS     = 10000
	defaultStrLen  = 100
	defaultByteLen = 100
)

// OptionalOptions lists the option patterns ('#' = a field name).
func OptionalOptions() []string {
	return []string{NumberOfRows, RowsPerSecond, ScanParallel, "fields.#.kind", "fields.#.min",
		"fields.#.max", "fields.#.max-past", "fields.#.length", "fields.#.var-len",
		"fields.#.start", "fields.#.end", "fields.#.null-rate"}
}

func key(field, opt string) string { return "fields." + field + "." + opt }

// fieldOptions returns the per-field keys Flink accepts for a field of
// type t generated with kind.
func fieldOptions(name string, t types.Type, kind string) []string {
	out := []string{key(name, "kind")}
	add := func(opts ...string) {
		for _, o := range opts {
			out = append(out, key(name, o))
		}
	}
	if kind == "sequence" {
		switch t.Kind {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
			types.Decimal, types.Char, types.VarChar, types.Binary, types.VarBinary:
			add("start", "end")
		}
		return out
	}
	return append(out, randomOptions(name, t)...)
}

// randomOptions lists the keys of a random generator for name (nested
// generators are named "<field>.element", "<field>.key", "<field>.value",
// "<field>.<row field>", as in Flink).
func randomOptions(name string, t types.Type) []string {
	var out []string
	add := func(opts ...string) {
		for _, o := range opts {
			out = append(out, key(name, o))
		}
	}
	switch t.Kind {
	case types.Array:
		out = append(out, randomOptions(name+".element", *t.Elem)...)
		add("null-rate", "length")
	case types.Map:
		out = append(out, randomOptions(name+".key", *t.Elem)...)
		out = append(out, randomOptions(name+".value", *t.Value)...)
		add("null-rate", "length")
	case types.Row:
		for _, f := range t.Fields {
			out = append(out, randomOptions(name+"."+f.Name, f.Type)...)
		}
		add("null-rate")
	case types.Boolean, types.Char:
		add("null-rate")
	case types.VarChar:
		add("length", "null-rate", "var-len")
	case types.VarBinary:
		add("length", "var-len")
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.Decimal, types.IntervalYearMonth, types.IntervalDayTime:
		add("min", "max", "null-rate")
	case types.Timestamp, types.TimestampLTZ:
		add("max-past", "null-rate")
	}
	return out
}

// SupportedOptions lists every key a datagen table of this physical schema
// accepts, as Flink computes it (per field, by type and kind).
func SupportedOptions(opts map[string]string, physical types.Schema) []string {
	out := []string{NumberOfRows, RowsPerSecond, ScanParallel}
	for _, f := range physical {
		kind := opts[key(f.Name, "kind")]
		if kind == "" {
			kind = "random"
		}
		out = append(out, fieldOptions(f.Name, f.Type, kind)...)
	}
	return out
}

func parseErr(v, k string) error {
	return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, k)
}

type optReader struct{ m map[string]string }

func (o optReader) int64(k string, def int64) (int64, error) {
	v, ok := o.m[k]
	if !ok {
		return def, nil
	}
	x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, parseErr(v, k)
	}
	return x, nil
}

func (o optReader) intRange(k string, def, lo, hi int64) (int64, error) {
	x, err := o.int64(k, def)
	if err != nil {
		return 0, err
	}
	if x < lo || x > hi {
		return 0, parseErr(o.m[k], k)
	}
	return x, nil
}

func (o optReader) float(k string, def float64) (float64, error) {
	v, ok := o.m[k]
	if !ok {
		return def, nil
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, parseErr(v, k)
	}
	return x, nil
}

func (o optReader) bool(k string) (bool, error) {
	v, ok := o.m[k]
	if !ok {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, parseErr(v, k)
}

// duration parses Flink's duration syntax: a number with an optional unit
// (ms by default): "500", "10 s", "1min", "2h", "1d".
func (o optReader) duration(k string) (time.Duration, error) {
	v, ok := o.m[k]
	if !ok {
		return 0, nil
	}
	s := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, parseErr(v, k)
	}
	units := map[string]time.Duration{
		"": time.Millisecond, "ns": time.Nanosecond, "nano": time.Nanosecond, "nanos": time.Nanosecond,
		"us": time.Microsecond, "µs": time.Microsecond, "micro": time.Microsecond, "micros": time.Microsecond,
		"ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
		"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
		"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	}
	u, ok := units[strings.TrimSpace(s[i:])]
	if !ok {
		return 0, parseErr(v, k)
	}
	return time.Duration(n) * u, nil
}

// generator appends n values to a builder of its field's Arrow type.
type generator struct {
	// fill appends the values of the next n rows (random and clock
	// values); nil for a 'sequence' of numbers or strings, whose values
	// come from the row index (fillSeq).
	fill func(b array.Builder, n int)
	// fillSeq appends the values of rows first, first+1, …, first+n-1.
	fillSeq func(b array.Builder, first int64, n int)
	// build, when set, makes the next n values as an array directly (the
	// values fill would append, without a builder).
	build func(n int) arrow.Array
	// skip consumes the random draws of the next n rows without producing
	// them (nil: the field draws nothing), so that a split's rows have the
	// values they have in the whole stream (split.go).
	skip func(n int)
	// draws is the number of values the field draws per row when fixed
	// (0: it varies): skipping rows then jumps the PCG ahead (pcg.go).
	draws int
	// remaining is the number of values a sequence can still produce
	// (-1: unlimited).
	remaining int64
	// pcg is the field's random source: the checkpointed state
	// (position.go).
	pcg *rand.PCG
}

// Source generates rows.
type Source struct {
	name      string
	physical  types.Schema
	proj      []int
	out       *arrow.Schema
	gens      []*generator // per projected column
	total     int64        // rows to produce, -1 unbounded
	rps       int64
	batchSize int
	bounded   bool
	// split of splits: this instance makes chunks split, split+splits, …
	// of the row stream (split.go).
	split, splits int
	// pos is the checkpointed position (position.go).
	pos position
	// origin is the row the splits started at (0, or the smallest
	// position restored): 'rows-per-second' paces the stream from it.
	origin int64
}

// NewSource returns a source for a datagen table named name (for
// messages) with the given options and physical schema, producing the
// projected columns (nil: all). bounded is true in batch mode. loc is the
// session time zone for DATE and TIME values.
func NewSource(name string, opts map[string]string, physical types.Schema, projection []int, batchSize int, bounded bool, loc *time.Location) (*Source, error) {
	if projection == nil {
		projection = make([]int, len(physical))
		for i := range projection {
			projection[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = vectorized.DefaultBatchSize
	}
	if loc == nil {
		loc = time.UTC
	}
	o := optReader{opts}
	s := &Source{name: name, physical: physical, proj: projection, batchSize: batchSize, bounded: bounded, total: -1, splits: 1}
	rows, err := o.int64(NumberOfRows, -1)
	if err != nil {
		return nil, err
	}
	if _, ok := opts[NumberOfRows]; ok && rows < 0 {
		return nil, parseErr(opts[NumberOfRows], NumberOfRows)
	}
	if s.rps, err = o.int64(RowsPerSecond, defaultRPS); err != nil {
		return nil, err
	}
	if s.rps <= 0 {
		return nil, parseErr(opts[RowsPerSecond], RowsPerSecond)
	}
	if _, err := o.int64(ScanParallel, 1); err != nil {
		return nil, err
	}
	all := make([]*generator, len(physical))
	for i, f := range physical {
		g, err := newGenerator(o, i, f, loc)
		if err != nil {
			return nil, err
		}
		all[i] = g
	}
	s.total = rows
	for _, g := range all {
		if g.remaining >= 0 && (s.total < 0 || g.remaining < s.total) {
			s.total = g.remaining
		}
	}
	if bounded && s.total < 0 {
		return nil, fmt.Errorf("Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded.", name)
	}
	var outFields types.Schema
	for _, p := range projection {
		if p < 0 || p >= len(physical) {
			return nil, fmt.Errorf("datagen: projection index %d out of range", p)
		}
		outFields = append(outFields, physical[p])
		s.gens = append(s.gens, all[p])
	}
	if s.out, err = types.ArrowSchema(outFields); err != nil {
		return nil, err
	}
	return s, nil
}

// SetBounded marks the source as running in batch mode, where it is not
// throttled by 'rows-per-second'.
func (s *Source) SetBounded(bounded bool) { s.bounded = bounded }

// Rows returns the number of rows a bounded source produces (-1:
// unbounded).
func (s *Source) Rows() int64 { return s.total }

// Open does nothing.
func (s *Source) Open(ctx context.Context) error { return nil }

// Close does nothing.
func (s *Source) Close() error { return nil }

var _ vectorized.Source = (*Source)(nil)

const seedSalt = 0x7461626c6572756e // "tablerun"

func newGenerator(o optReader, idx int, f types.Field, loc *time.Location) (*generator, error) {
	kind := o.m[key(f.Name, "kind")]
	if kind == "" {
		kind = "random"
	}
	pcg := rand.NewPCG(uint64(idx+1), seedSalt)
	rng := rand.New(pcg)
	var g *generator
	var err error
	switch kind {
	case "random":
		g, err = randomGenerator(o, pcg, rng, f, loc)
	case "sequence":
		g, err = sequenceGenerator(o, rng, f, loc)
	default:
		return nil, fmt.Errorf("Unsupported generator kind: %s", kind)
	}
	if err != nil {
		return nil, err
	}
	g.pcg = pcg
	return g, nil
}

// withNulls wraps a value filler with the null rate.
func withNulls(rng *rand.Rand, rate float64, b array.Builder, n int, one func()) {
	for i := 0; i < n; i++ {
		if rate > 0 && rng.Float64() < rate {
			b.AppendNull()
			continue
		}
		one()
	}
}

// skipNulls consumes the draws withNulls makes for n values.
func skipNulls(rng *rand.Rand, rate float64, n int, one func()) {
	for i := 0; i < n; i++ {
		if rate > 0 && rng.Float64() < rate {
			continue
		}
		one()
	}
}

// scratchSkip makes a skip function that fills a scratch builder of type
// at and drops it (the slow path, for nested types).
func scratchSkip(fill func(b array.Builder, n int), at arrow.DataType) func(n int) {
	return func(n int) {
		b := array.NewBuilder(memory.DefaultAllocator, at)
		fill(b, n)
		b.NewArray().Release()
		b.Release()
	}
}

// uniformInt returns a uniform integer in [lo, hi].
func uniformInt(rng *rand.Rand, lo, hi int64) int64 {
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return int64(rng.Uint64())
	}
	return lo + int64(rng.Uint64N(span+1))
}

// uniformInts returns a filler of n uniform integers in [lo, hi] without
// NULLs (the values of uniformInt, in a loop without closures or calls
// through the rand.Source interface) and the same as an array builder
// (one allocation, no validity bitmap).
func uniformInts[T int8 | int16 | int32 | int64, B interface {
	Reserve(int)
	UnsafeAppend(T)
}](pcg *rand.PCG, lo, hi int64, dt arrow.DataType) (func(b array.Builder, n int), func(n int) arrow.Array) {
	fill := func(b array.Builder, n int) {
		bb := b.(B)
		bb.Reserve(n)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(T(pcgUniform(pcg, lo, hi)))
		}
	}
	build := func(n int) arrow.Array {
		vals := make([]T, n)
		for i := range vals {
			vals[i] = T(pcgUniform(pcg, lo, hi))
		}
		var buf []byte
		if n > 0 {
			buf = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), n*int(unsafe.Sizeof(vals[0])))
		}
		d := array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
		defer d.Release()
		return array.MakeFromData(d)
	}
	return fill, build
}

const hexChars = "0123456789abcdef"

// randomGenerator makes the generator of a random field drawing from rng,
// whose source is pcg.
//
// A FLOAT/DOUBLE range whose lower bound is not below its upper one is
// Flink's runtime failure of commons-math's nextUniform(lower, upper).
func randomGenerator(o optReader, pcg *rand.PCG, rng *rand.Rand, f types.Field, loc *time.Location) (*generator, error) {
	t := f.Type
	g := &generator{remaining: -1}
	nullRate, err := o.float(key(f.Name, "null-rate"), 0)
	if err != nil {
		return nil, err
	}
	intGen := func(defLo, defHi int64, put func(b array.Builder, v int64), fast func(lo, hi int64) (func(b array.Builder, n int), func(n int) arrow.Array)) error {
		lo, err := o.intRange(key(f.Name, "min"), defLo, defLo, defHi)
		if err != nil {
			return err
		}
		hi, err := o.intRange(key(f.Name, "max"), defHi, defLo, defHi)
		if err != nil {
			return err
		}
		if lo > hi {
			return fmt.Errorf("Invalid options for field '%s': 'fields.%s.min' (%d) is greater than 'fields.%s.max' (%d).", f.Name, f.Name, lo, f.Name, hi)
		}
		g.fill = func(b array.Builder, n int) {
			withNulls(rng, nullRate, b, n, func() { put(b, uniformInt(rng, lo, hi)) })
		}
		if nullRate == 0 {
			if fast != nil {
				g.fill, g.build = fast(lo, hi)
			}
			if span := uint64(hi - lo); span == math.MaxUint64 || (span+1)&span == 0 {
				g.draws = 1 // one Uint64 (a power-of-two range is masked)
			}
			g.skip = func(n int) {
				for i := 0; i < n; i++ {
					pcgUniform(pcg, lo, hi)
				}
			}
		} else {
			g.skip = func(n int) { skipNulls(rng, nullRate, n, func() { uniformInt(rng, lo, hi) }) }
		}
		return nil
	}
	switch t.Kind {
	case types.Boolean:
		g.fill = func(b array.Builder, n int) {
			bb := b.(*array.BooleanBuilder)
			withNulls(rng, nullRate, b, n, func() { bb.Append(rng.IntN(2) == 1) })
		}
		g.skip = func(n int) { skipNulls(rng, nullRate, n, func() { rng.IntN(2) }) }
		if nullRate == 0 {
			g.draws = 1
		}
	case types.TinyInt:
		err = intGen(math.MinInt8, math.MaxInt8, func(b array.Builder, v int64) { b.(*array.Int8Builder).Append(int8(v)) },
			func(lo, hi int64) (func(array.Builder, int), func(int) arrow.Array) {
				return uniformInts[int8, *array.Int8Builder](pcg, lo, hi, arrow.PrimitiveTypes.Int8)
			})
	case types.SmallInt:
		err = intGen(math.MinInt16, math.MaxInt16, func(b array.Builder, v int64) { b.(*array.Int16Builder).Append(int16(v)) },
			func(lo, hi int64) (func(array.Builder, int), func(int) arrow.Array) {
				return uniformInts[int16, *array.Int16Builder](pcg, lo, hi, arrow.PrimitiveTypes.Int16)
			})
	case types.Int:
		err = intGen(math.MinInt32, math.MaxInt32, func(b array.Builder, v int64) { b.(*array.Int32Builder).Append(int32(v)) },
			func(lo, hi int64) (func(array.Builder, int), func(int) arrow.Array) {
				return uniformInts[int32, *array.Int32Builder](pcg, lo, hi, arrow.PrimitiveTypes.Int32)
			})
	case types.BigInt:
		err = intGen(math.MinInt64, math.MaxInt64, func(b array.Builder, v int64) { b.(*array.Int64Builder).Append(v) },
			func(lo, hi int64) (func(array.Builder, int), func(int) arrow.Array) {
				return uniformInts[int64, *array.Int64Builder](pcg, lo, hi, arrow.PrimitiveTypes.Int64)
			})
	case types.IntervalYearMonth:
		err = intGen(0, 120000, func(b array.Builder, v int64) {
			b.(*array.MonthIntervalBuilder).Append(arrow.MonthInterval(v))
		}, nil)
	case types.IntervalDayTime:
		err = intGen(math.MinInt64, math.MaxInt64, func(b array.Builder, v int64) {
			b.(*array.DurationBuilder).Append(arrow.Duration(v))
		}, nil)
	case types.Float, types.Double, types.Decimal:
		defLo, defHi := math.SmallestNonzeroFloat64, math.MaxFloat64
		if t.Kind == types.Float {
			defLo, defHi = math.SmallestNonzeroFloat32, math.MaxFloat32
		}
		lo, err := o.float(key(f.Name, "min"), defLo)
		if err != nil {
			return nil, err
		}
		hi, err := o.float(key(f.Name, "max"), defHi)
		if err != nil {
			return nil, err
		}
		if lo >= hi && t.Kind != types.Decimal {
			// as nextUniform(lower, upper) in Flink's generator
			return nil, boundsError(strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64))
		}
		g.skip = func(n int) { skipNulls(rng, nullRate, n, func() { rng.Float64() }) }
		if nullRate == 0 {
			g.draws = 1
		}
		switch t.Kind {
		case types.Float:
			g.fill = func(b array.Builder, n int) {
				bb := b.(*array.Float32Builder)
				withNulls(rng, nullRate, b, n, func() { bb.Append(float32(lo + rng.Float64()*(hi-lo))) })
			}
		case types.Double:
			g.fill = func(b array.Builder, n int) {
				bb := b.(*array.Float64Builder)
				withNulls(rng, nullRate, b, n, func() { bb.Append(lo + rng.Float64()*(hi-lo)) })
			}
		default:
			bound := math.Pow10(t.Precision-t.Scale) - math.Pow10(-t.Scale)
			lo, hi = math.Max(lo, -bound), math.Min(hi, bound)
			scale := math.Pow10(t.Scale)
			g.fill = func(b array.Builder, n int) {
				bb := b.(*array.Decimal128Builder)
				withNulls(rng, nullRate, b, n, func() {
					x := (lo + rng.Float64()*(hi-lo)) * scale
					bf := new(big.Float).SetFloat64(math.Round(x))
					bi, _ := bf.Int(nil)
					bb.Append(decimal128.FromBigInt(bi))
				})
			}
		}
	case types.Char, types.VarChar:
		length := int64(t.Precision)
		varLen := false
		if t.Kind == types.VarChar {
			def := int64(t.Precision)
			if t.Precision == types.MaxLength {
				def = defaultStrLen
			}
			if length, err = o.intRange(key(f.Name, "length"), def, 0, math.MaxInt32); err != nil {
				return nil, err
			}
			if varLen, err = o.bool(key(f.Name, "var-len")); err != nil {
				return nil, err
			}
		}
		buf := make([]byte, length)
		g.fill = func(b array.Builder, n int) {
			sb := b.(*array.StringBuilder)
			withNulls(rng, nullRate, b, n, func() {
				l := int(length)
				if varLen && length > 1 {
					l = 1 + rng.IntN(int(length)-1)
				}
				for i := 0; i < l; i++ {
					buf[i] = hexChars[rng.IntN(16)]
				}
				sb.BinaryBuilder.Append(buf[:l])
			})
		}
		g.skip = func(n int) {
			skipNulls(rng, nullRate, n, func() {
				l := int(length)
				if varLen && length > 1 {
					l = 1 + rng.IntN(int(length)-1)
				}
				for i := 0; i < l; i++ {
					rng.IntN(16)
				}
			})
		}
	case types.Binary, types.VarBinary:
		length := int64(t.Precision)
		varLen := false
		if t.Kind == types.VarBinary {
			def := int64(t.Precision)
			if t.Precision == types.MaxLength {
				def = defaultByteLen
			}
			if length, err = o.intRange(key(f.Name, "length"), def, 0, math.MaxInt32); err != nil {
				return nil, err
			}
			if varLen, err = o.bool(key(f.Name, "var-len")); err != nil {
				return nil, err
			}
		}
		g.fill = func(b array.Builder, n int) {
			bb := b.(*array.BinaryBuilder)
			for i := 0; i < n; i++ {
				l := int(length)
				if varLen && length > 1 {
					l = 1 + rng.IntN(int(length)-1)
				}
				v := make([]byte, l)
				for j := range v {
					v[j] = byte(rng.Uint32())
				}
				bb.Append(v)
			}
		}
		g.skip = func(n int) {
			for i := 0; i < n; i++ {
				l := int(length)
				if varLen && length > 1 {
					l = 1 + rng.IntN(int(length)-1)
				}
				for j := 0; j < l; j++ {
					rng.Uint32()
				}
			}
		}
	case types.Timestamp, types.TimestampLTZ:
		maxPast, err := o.duration(key(f.Name, "max-past"))
		if err != nil {
			return nil, err
		}
		g.fill = func(b array.Builder, n int) {
			bb := b.(*array.TimestampBuilder)
			withNulls(rng, nullRate, b, n, func() {
				ms := time.Now().UnixMilli()
				if pm := maxPast.Milliseconds(); pm > 0 {
					ms -= rng.Int64N(pm)
				}
				// micros, or nanos for TIMESTAMP(7..9)
				bb.Append(arrow.Timestamp(ms * (types.TimestampUnitsPerSecond(t) / 1000)))
			})
		}
		g.skip = func(n int) {
			skipNulls(rng, nullRate, n, func() {
				if pm := maxPast.Milliseconds(); pm > 0 {
					rng.Int64N(pm)
				}
			})
		}
	case types.Date, types.Time:
		g.fill = nowFiller(t, loc)
	case types.Array, types.Map, types.Row:
		next, err := nestedValues(o, pcg, rng, f, loc)
		if err != nil {
			return nil, err
		}
		g.fill = func(b array.Builder, n int) {
			for i := 0; i < n; i++ {
				// The generated values always fit the type.
				_ = types.AppendValue(b, next(), t)
			}
		}
		at, err := types.ArrowType(t)
		if err != nil {
			return nil, err
		}
		g.skip = scratchSkip(g.fill, at)
	default:
		return nil, fmt.Errorf("not supported yet: datagen for column %s of type %s", f.Name, t)
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

// nestedValues returns a function producing random values of an ARRAY,
// MAP or ROW field (canonical Go values; the slow path). Each element
// comes from the random generator of the nested name with its own options
// ('fields.a.element.min', 'fields.m.key.length', 'fields.r.x.null-rate');
// 'fields.#.length' is the collection size (default 3).
func nestedValues(o optReader, pcg *rand.PCG, rng *rand.Rand, f types.Field, loc *time.Location) (func() any, error) {
	t := f.Type
	nullRate, err := o.float(key(f.Name, "null-rate"), 0)
	if err != nil {
		return nil, err
	}
	// one returns count values of a nested generator.
	child := func(name string, ct types.Type) (func(count int) []any, error) {
		g, err := randomGenerator(o, pcg, rng, types.Field{Name: name, Type: ct}, loc)
		if err != nil {
			return nil, err
		}
		at, err := types.ArrowType(ct)
		if err != nil {
			return nil, err
		}
		return func(count int) []any {
			b := array.NewBuilder(memory.DefaultAllocator, at)
			defer b.Release()
			g.fill(b, count)
			arr := b.NewArray()
			defer arr.Release()
			out := make([]any, count)
			for i := range out {
				out[i] = types.GetValue(arr, i, ct)
			}
			return out
		}, nil
	}
	var next func() any
	switch t.Kind {
	case types.Array, types.Map:
		length, err := o.intRange(key(f.Name, "length"), 3, 0, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		if t.Kind == types.Array {
			elems, err := child(f.Name+".element", *t.Elem)
			if err != nil {
				return nil, err
			}
			next = func() any { return elems(int(length)) }
		} else {
			keys, err := child(f.Name+".key", *t.Elem)
			if err != nil {
				return nil, err
			}
			vals, err := child(f.Name+".value", *t.Value)
			if err != nil {
				return nil, err
			}
			next = func() any {
				return &types.MapValue{Keys: keys(int(length)), Values: vals(int(length))}
			}
		}
	default:
		fields := make([]func(int) []any, len(t.Fields))
		for i, rf := range t.Fields {
			if fields[i], err = child(f.Name+"."+rf.Name, rf.Type); err != nil {
				return nil, err
			}
		}
		next = func() any {
			row := make([]any, len(fields))
			for i, fg := range fields {
				row[i] = fg(1)[0]
			}
			return row
		}
	}
	return func() any {
		if nullRate > 0 && rng.Float64() < nullRate {
			return nil
		}
		return next()
	}, nil
}

// nowFiller produces the current date, time or timestamp.
func nowFiller(t types.Type, loc *time.Location) func(b array.Builder, n int) {
	return func(b array.Builder, n int) {
		now := time.Now()
		_, off := now.In(loc).Zone()
		local := now.UnixMilli() + int64(off)*1000
		for i := 0; i < n; i++ {
			switch bb := b.(type) {
			case *array.Date32Builder:
				bb.Append(arrow.Date32(math.Floor(float64(local) / 86_400_000)))
			case *array.Time32Builder:
				bb.Append(arrow.Time32(((local % 86_400_000) + 86_400_000) % 86_400_000))
			case *array.TimestampBuilder:
				// micros, or nanos for TIMESTAMP(7..9)
				bb.Append(arrow.Timestamp(now.UnixMilli() * (types.TimestampUnitsPerSecond(t) / 1000)))
			}
		}
	}
}

func sequenceGenerator(o optReader, rng *rand.Rand, f types.Field, loc *time.Location) (*generator, error) {
	t := f.Type
	g := &generator{remaining: -1}
	switch t.Kind {
	case types.Boolean:
		g.fill = func(b array.Builder, n int) {
			bb := b.(*array.BooleanBuilder)
			for i := 0; i < n; i++ {
				bb.Append(rng.IntN(2) == 1)
			}
		}
		g.skip = func(n int) {
			for i := 0; i < n; i++ {
				rng.IntN(2)
			}
		}
		g.draws = 1
		return g, nil
	case types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		g.fill = nowFiller(t, loc)
		return g, nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.Decimal, types.Char, types.VarChar, types.Binary, types.VarBinary:
	default:
		return nil, fmt.Errorf("not supported yet: datagen for column %s of type %s", f.Name, t)
	}
	for _, k := range []string{"start", "end"} {
		if _, ok := o.m[key(f.Name, k)]; !ok {
			return nil, fmt.Errorf("Could not find required property '%s' for sequence generator.", key(f.Name, k))
		}
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.Float, types.Double, types.Decimal:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	start, err := o.intRange(key(f.Name, "start"), 0, lo, hi)
	if err != nil {
		return nil, err
	}
	end, err := o.intRange(key(f.Name, "end"), 0, lo, hi)
	if err != nil {
		return nil, err
	}
	if end < start {
		g.remaining = 0
	} else {
		g.remaining = end - start + 1
		if g.remaining <= 0 { // the full int64 range
			g.remaining = math.MaxInt64
		}
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)
	// The value of row i is start + i (i < remaining).
	g.fillSeq = func(b array.Builder, first int64, n int) {
		for i := 0; i < n; i++ {
			v := start + first + int64(i)
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.Append(int8(v))
			case *array.Int16Builder:
				bb.Append(int16(v))
			case *array.Int32Builder:
				bb.Append(int32(v))
			case *array.Int64Builder:
				bb.Append(v)
			case *array.Float32Builder:
				bb.Append(float32(v))
			case *array.Float64Builder:
				bb.Append(float64(v))
			case *array.Decimal128Builder:
				x := new(big.Int).Mul(big.NewInt(v), scale)
				if len(new(big.Int).Abs(x).String()) > t.Precision {
					bb.AppendNull()
				} else {
					bb.Append(decimal128.FromBigInt(x))
				}
			case *array.StringBuilder:
				bb.Append(strconv.FormatInt(v, 10))
			case *array.BinaryBuilder:
				var buf [8]byte
				binary.BigEndian.PutUint64(buf[:], uint64(v))
				bb.Append(buf[:])
			}
		}
	}
	return g, nil
}

// boundsError is commons-math's NumberIsTooLargeException for a uniform
// draw whose lower bound is not below its upper bound.
func boundsError(lo, hi string) error {
	return fmt.Errorf("org.apache.commons.math3.exception.NumberIsTooLargeException: lower bound (%s) must be strictly less than upper bound (%s)", lo, hi)
}
