// Package parquet is Flink's 'parquet' format of the filesystem connector,
// read and written through arrow-go's Parquet implementation (pqarrow).
//
// Type mapping (Flink's ParquetSchemaConverter, Hive compatible): every
// column is OPTIONAL; CHAR/VARCHAR → BINARY (UTF8), BOOLEAN → BOOLEAN,
// BINARY/VARBINARY → BINARY, DECIMAL(p, s) → FIXED_LEN_BYTE_ARRAY (DECIMAL,
// the fewest bytes that hold p digits), TINYINT → INT32 (INT_8), SMALLINT →
// INT32 (INT_16), INT → INT32, BIGINT → INT64, FLOAT → FLOAT, DOUBLE →
// DOUBLE, DATE → INT32 (DATE), TIME → INT32 (TIME_MILLIS), TIMESTAMP and
// TIMESTAMP_LTZ → INT96 whatever the precision (or, with
// 'parquet.write.int64.timestamp' = 'true', INT64 TIMESTAMP in the unit of
// 'parquet.timestamp.time.unit'), ARRAY → LIST (3-level, `element`), MAP
// → MAP (`key_value` of `key`, `value`), ROW → a group. Intervals and NULL
// have no Parquet mapping in Flink and are rejected.
//
// 'parquet.utc-timezone' (default false) tells how an INT96 timestamp
// relates to a TIMESTAMP's wall-clock value: false interprets it in the
// process's local time zone (as Hive 0.x–2.x and Flink, whose JVM zone
// it is), true in UTC. TIMESTAMP_LTZ values are instants and are stored
// unchanged.
//
// Reading maps the file's columns to the table's by name (exactly, else
// ignoring case, as Flink's reader); a column missing from a file reads as
// NULL. Only the projected columns are decoded, and of a ROW column only
// the fields read downstream. Values are converted to the declared types
// (integer widening, timestamp units, decimal rescaling, strings and
// binaries), with an error for a conversion that would lose data.
package parquet

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/tablerun/tablerun/core/config"
)

// Options are the parsed 'parquet.*' options of a table.
type Options struct {
	// UTCTimezone is parquet.utc-timezone.
	UTCTimezone bool
	// Int64Timestamp is parquet.write.int64.timestamp: timestamps are
	// written as INT64 in TimeUnit instead of INT96.
	Int64Timestamp bool
	// TimeUnit is parquet.timestamp.time.unit (millis, micros, nanos).
	TimeUnit arrow.TimeUnit
	// Compression is parquet.compression (Flink's default SNAPPY).
	Compression compress.Compression
	// CompressionLevel is parquet.compression.codec.zstd.level (zstd
	// only; 0 is the codec's default).
	CompressionLevel int
	// BlockSize is parquet.block.size, the row group size in bytes.
	BlockSize int64
	// PageSize is parquet.page.size.
	PageSize int64
	// DictionaryPageSize is parquet.dictionary.page.size.
	DictionaryPageSize int64
	// EnableDictionary is parquet.enable.dictionary.
	EnableDictionary bool
	// Version2 is parquet.writer.version = PARQUET_2_0.
	Version2 bool
	// Loc is the local time zone of 'parquet.utc-timezone' = 'false'
	// (nil: time.Local).
	Loc *time.Location
}

// Parquet-mr's defaults, which Flink keeps (compression: Flink's SNAPPY).
const (
	DefaultBlockSize          = 128 << 20
	DefaultPageSize           = 1 << 20
	DefaultDictionaryPageSize = 1 << 20
)

// DefaultOptions are the options of a table that sets none.
func DefaultOptions() Options {
	return Options{TimeUnit: arrow.Microsecond, Compression: compress.Codecs.Snappy,
		BlockSize: DefaultBlockSize, PageSize: DefaultPageSize,
		DictionaryPageSize: DefaultDictionaryPageSize, EnableDictionary: true}
}

// OptionKeys are the table option keys of the format. Besides
// parquet.utc-timezone, Flink hands every 'parquet.*' key to parquet-mr's
// ParquetOutputFormat; these are the ones tablerun implements, plus
// parquet.validation and parquet.writer.max-padding, accepted with no
// effect (arrow-go validates always and never pads row groups).
func OptionKeys() []string {
	return []string{
		"parquet.utc-timezone", "parquet.write.int64.timestamp", "parquet.timestamp.time.unit",
		"parquet.compression", "parquet.compression.codec.zstd.level", "parquet.block.size",
		"parquet.page.size", "parquet.dictionary.page.size", "parquet.enable.dictionary",
		"parquet.writer.version", "parquet.validation", "parquet.writer.max-padding",
	}
}

func parseSize(opts map[string]string, key string, def int64) (int64, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	n, err := config.ParseMemorySize(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
	}
	return n, nil
}

// ParseOptions reads the format's options of a table.
func ParseOptions(opts map[string]string) (Options, error) {
	o := DefaultOptions()
	var err error
	if o.UTCTimezone, err = config.BoolOption(opts, "parquet.utc-timezone", false); err != nil {
		return o, err
	}
	if o.Int64Timestamp, err = config.BoolOption(opts, "parquet.write.int64.timestamp", false); err != nil {
		return o, err
	}
	if o.EnableDictionary, err = config.BoolOption(opts, "parquet.enable.dictionary", true); err != nil {
		return o, err
	}
	if _, err = config.BoolOption(opts, "parquet.validation", false); err != nil {
		return o, err
	}
	if v, ok := opts["parquet.timestamp.time.unit"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "millis":
			o.TimeUnit = arrow.Millisecond
		case "micros":
			o.TimeUnit = arrow.Microsecond
		case "nanos":
			o.TimeUnit = arrow.Nanosecond
		default:
			return o, fmt.Errorf("Unsupported value '%s' for 'parquet.timestamp.time.unit'. Supported values are [millis, micros, nanos].", v)
		}
	}
	if v, ok := opts["parquet.compression"]; ok {
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "UNCOMPRESSED":
			o.Compression = compress.Codecs.Uncompressed
		case "SNAPPY":
			o.Compression = compress.Codecs.Snappy
		case "GZIP":
			o.Compression = compress.Codecs.Gzip
		case "BROTLI":
			o.Compression = compress.Codecs.Brotli
		case "ZSTD":
			o.Compression = compress.Codecs.Zstd
		case "LZ4_RAW":
			o.Compression = compress.Codecs.Lz4Raw
		case "LZO", "LZ4":
			return o, fmt.Errorf("not supported yet: 'parquet.compression' = '%s' (arrow-go writes UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD and LZ4_RAW)", v)
		default:
			return o, fmt.Errorf("No enum constant org.apache.parquet.hadoop.metadata.CompressionCodecName.%s (option 'parquet.compression')", strings.ToUpper(v))
		}
	}
	if v, ok := opts["parquet.compression.codec.zstd.level"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return o, fmt.Errorf("Could not parse value '%s' for key 'parquet.compression.codec.zstd.level'.", v)
		}
		o.CompressionLevel = n
	}
	if o.BlockSize, err = parseSize(opts, "parquet.block.size", DefaultBlockSize); err != nil {
		return o, err
	}
	if o.PageSize, err = parseSize(opts, "parquet.page.size", DefaultPageSize); err != nil {
		return o, err
	}
	if o.DictionaryPageSize, err = parseSize(opts, "parquet.dictionary.page.size", DefaultDictionaryPageSize); err != nil {
		return o, err
	}
	if _, err = parseSize(opts, "parquet.writer.max-padding", 1); err != nil {
		return o, err
	}
	if v, ok := opts["parquet.writer.version"]; ok {
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "PARQUET_1_0", "V1":
		case "PARQUET_2_0", "V2":
			o.Version2 = true
		default:
			return o, fmt.Errorf("Unsupported value '%s' for 'parquet.writer.version'. Supported values are [PARQUET_1_0, PARQUET_2_0].", v)
		}
	}
	return o, nil
}

func (o Options) loc() *time.Location {
	if o.Loc != nil {
		return o.Loc
	}
	return time.Local
}

// writerProperties are the parquet writer properties of the options.
func (o Options) writerProperties() *pq.WriterProperties {
	props := []pq.WriterProperty{
		pq.WithCompression(o.Compression),
		pq.WithDictionaryDefault(o.EnableDictionary),
		pq.WithDataPageSize(o.PageSize),
		pq.WithDictionaryPageSizeLimit(o.DictionaryPageSize),
		pq.WithCreatedBy("tablerun"),
		pq.WithRootName("flink_schema"),
		pq.WithStats(true),
	}
	if o.CompressionLevel != 0 && o.Compression == compress.Codecs.Zstd {
		props = append(props, pq.WithCompressionLevel(o.CompressionLevel))
	}
	// parquet-mr's writer version is the data page version; the logical
	// types are those of the current format (nanosecond timestamps).
	props = append(props, pq.WithVersion(pq.V2_LATEST))
	if o.Version2 {
		props = append(props, pq.WithDataPageVersion(pq.DataPageV2))
	} else {
		props = append(props, pq.WithDataPageVersion(pq.DataPageV1))
	}
	return pq.NewWriterProperties(props...)
}
