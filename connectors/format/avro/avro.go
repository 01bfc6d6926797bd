// Package avro is Flink's 'avro' format of the filesystem connector:
// Avro object container files, through github.com/hamba/avro/v2.
//
// Schema (Flink's AvroSchemaConverter): the top-level record is
// org.apache.flink.avro.generated.record, a ROW column's record is named
// after its parent and field (record_<field>); a nullable type is the union
// ["null", T] with default null. BOOLEAN → boolean, TINYINT/SMALLINT/INT →
// int, BIGINT → long, FLOAT → float, DOUBLE → double, CHAR/VARCHAR →
// string, BINARY/VARBINARY → bytes, DECIMAL(p, s) → bytes (decimal), DATE
// → int (date), TIME(p ≤ 3) → int (time-millis), TIMESTAMP(p) and
// TIMESTAMP_LTZ(p) → long timestamp-millis (p ≤ 3) or timestamp-micros (p ≤
// 6) — Flink's legacy mapping, 'avro.timestamp_mapping.legacy' = 'true' by
// default; with 'false' TIMESTAMP is local-timestamp-millis/micros —
// ARRAY → array, MAP<STRING, V> → map, ROW → record. Other types
// (intervals, TIMESTAMP(7..9), TIME(4..9), maps with non-string keys) are
// not supported, as in Flink.
//
// Reading follows the file's own schema (Avro schema resolution by field
// name is not done: a field the table declares and the file lacks reads
// as NULL, and a value of another Avro type is an error).
package avro

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hamba/avro/v2/ocf"

	"github.com/tablerun/tablerun/core/types"
)

// Options are the 'avro.*' options of a table.
type Options struct {
	// Codec is avro.codec (null, deflate, snappy, zstandard; Flink's
	// default snappy).
	Codec ocf.CodecName
	// LegacyTimestamps is avro.timestamp_mapping.legacy.
	LegacyTimestamps bool
}

// OptionKeys are the table option keys of the format.
func OptionKeys() []string {
	return []string{"avro.codec", "avro.timestamp_mapping.legacy", "avro.encoding"}
}

// ParseOptions reads the format options of a table.
func ParseOptions(opts map[string]string) (Options, error) {
	o := Options{Codec: ocf.Snappy, LegacyTimestamps: true}
	if v, ok := opts["avro.codec"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "null":
			o.Codec = ocf.Null
		case "deflate":
			o.Codec = ocf.Deflate
		case "snappy":
			o.Codec = ocf.Snappy
		case "zstandard", "zstd":
			o.Codec = ocf.ZStandard
		case "bzip2", "xz":
			return o, fmt.Errorf("not supported yet: 'avro.codec' = '%s' (hamba/avro writes null, deflate, snappy and zstandard)", v)
		default:
			return o, fmt.Errorf("Unrecognized codec: %s (option 'avro.codec')", v)
		}
	}
	if v, ok := opts["avro.timestamp_mapping.legacy"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
		case "false":
			o.LegacyTimestamps = false
		default:
			return o, fmt.Errorf("Could not parse value '%s' for key 'avro.timestamp_mapping.legacy'.", v)
		}
	}
	if v, ok := opts["avro.encoding"]; ok && !strings.EqualFold(strings.TrimSpace(v), "binary") {
		return o, fmt.Errorf("not supported yet: 'avro.encoding' = '%s' for files (object container files are binary)", v)
	}
	return o, nil
}

// Schema returns the Avro schema (JSON) of rows of schema, as Flink's
// AvroSchemaConverter makes it.
func Schema(schema types.Schema, opts Options) (string, error) {
	fields := make([]any, len(schema))
	for i, f := range schema {
		t, err := avroType(f.Type, "org.apache.flink.avro.generated.record_"+f.Name, opts)
		if err != nil {
			return "", fmt.Errorf("not supported yet: avro format for column %s of type %s: %w", f.Name, f.Type, err)
		}
		fields[i] = field(f.Name, t, f.Type.Nullable())
	}
	b, err := json.Marshal(map[string]any{"type": "record", "name": "record", "namespace": "org.apache.flink.avro.generated", "fields": fields})
	return string(b), err
}

func field(name string, t any, nullable bool) map[string]any {
	if nullable {
		return map[string]any{"name": name, "type": []any{"null", t}, "default": nil}
	}
	return map[string]any{"name": name, "type": t}
}

func nullable(t any, n bool) any {
	if n {
		return []any{"null", t}
	}
	return t
}

func avroType(t types.Type, name string, opts Options) (any, error) {
	switch t.Kind {
	case types.Boolean:
		return "boolean", nil
	case types.TinyInt, types.SmallInt, types.Int:
		return "int", nil
	case types.BigInt:
		return "long", nil
	case types.Float:
		return "float", nil
	case types.Double:
		return "double", nil
	case types.Char, types.VarChar:
		return "string", nil
	case types.Binary, types.VarBinary:
		return "bytes", nil
	case types.Decimal:
		return map[string]any{"type": "bytes", "logicalType": "decimal", "precision": t.Precision, "scale": t.Scale}, nil
	case types.Date:
		return map[string]any{"type": "int", "logicalType": "date"}, nil
	case types.Time:
		if t.Precision > 3 {
			return nil, fmt.Errorf("Avro does not support TIME type with precision: %d, it only supports precision less than 3.", t.Precision)
		}
		return map[string]any{"type": "int", "logicalType": "time-millis"}, nil
	case types.Timestamp, types.TimestampLTZ:
		local := t.Kind == types.Timestamp && !opts.LegacyTimestamps
		switch {
		case t.Precision <= 3:
			if local {
				return map[string]any{"type": "long", "logicalType": "local-timestamp-millis"}, nil
			}
			return map[string]any{"type": "long", "logicalType": "timestamp-millis"}, nil
		case t.Precision <= 6:
			if local {
				return map[string]any{"type": "long", "logicalType": "local-timestamp-micros"}, nil
			}
			return map[string]any{"type": "long", "logicalType": "timestamp-micros"}, nil
		}
		return nil, fmt.Errorf("Avro does not support TIMESTAMP type with precision: %d, it only supports precision less than 6.", t.Precision)
	case types.Array:
		e, err := avroType(*t.Elem, name, opts)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": nullable(e, t.Elem.Nullable())}, nil
	case types.Map:
		if t.Elem.Kind != types.VarChar && t.Elem.Kind != types.Char {
			return nil, fmt.Errorf("Avro format doesn't support non-string as key type of map. The key type is: %s", *t.Elem)
		}
		v, err := avroType(*t.Value, name, opts)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "map", "values": nullable(v, t.Value.Nullable())}, nil
	case types.Row:
		fs := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := avroType(f.Type, name+"_"+f.Name, opts)
			if err != nil {
				return nil, err
			}
			fs[i] = field(f.Name, ft, f.Type.Nullable())
		}
		dot := strings.LastIndexByte(name, '.')
		return map[string]any{"type": "record", "name": name[dot+1:], "namespace": name[:dot], "fields": fs}, nil
	}
	return nil, fmt.Errorf("Unsupported to derive Schema for type: %s", t)
}
