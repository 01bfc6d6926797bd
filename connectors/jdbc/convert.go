package jdbc

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tablerun/tablerun/core/types"
)

// Flink's JDBC type mapping for PostgreSQL, as the OIDs a declared type
// reads from (and writes to):
//
//	BOOLEAN               boolean
//	TINYINT, SMALLINT     smallint (int2, smallserial)
//	INT                   integer (int4, serial)
//	BIGINT                bigint (int8, bigserial)
//	FLOAT                 real (float4)
//	DOUBLE                double precision (float8)
//	DECIMAL(p, s)         numeric(p, s)
//	CHAR, VARCHAR, STRING char(n), varchar(n), text
//	BYTES                 bytea
//	DATE                  date
//	TIME(p)               time(p) without time zone
//	TIMESTAMP(p)          timestamp(p) without time zone
//	TIMESTAMP_LTZ(p)      timestamp(p) with time zone
//	ARRAY<T>              T[]
func oidsFor(t types.Type) []uint32 {
	switch t.Kind {
	case types.Boolean:
		return []uint32{pgtype.BoolOID}
	case types.TinyInt, types.SmallInt:
		return []uint32{pgtype.Int2OID}
	case types.Int:
		return []uint32{pgtype.Int4OID}
	case types.BigInt:
		return []uint32{pgtype.Int8OID}
	case types.Float:
		return []uint32{pgtype.Float4OID}
	case types.Double:
		return []uint32{pgtype.Float8OID}
	case types.Decimal:
		return []uint32{pgtype.NumericOID}
	case types.Char, types.VarChar:
		return []uint32{pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID}
	case types.VarBinary, types.Binary:
		return []uint32{pgtype.ByteaOID}
	case types.Date:
		return []uint32{pgtype.DateOID}
	case types.Time:
		return []uint32{pgtype.TimeOID}
	case types.Timestamp:
		return []uint32{pgtype.TimestampOID}
	case types.TimestampLTZ:
		return []uint32{pgtype.TimestamptzOID}
	}
	return nil
}

var typeMap = pgtype.NewMap()

// pgName is the server's name of a type OID.
func pgName(oid uint32) string {
	if t, ok := typeMap.TypeForOID(oid); ok {
		return t.Name
	}
	return fmt.Sprintf("type oid %d", oid)
}

// checkColumns checks that the columns a query returns map to the
// declared types (Flink's type mapping above).
func checkColumns(table string, fields []pgconn.FieldDescription, schema types.Schema) error {
	if len(fields) != len(schema) {
		return fmt.Errorf("internal: jdbc query returned %d columns for %d", len(fields), len(schema))
	}
	for i, f := range fields {
		if !mapsTo(f.DataTypeOID, schema[i].Type) {
			return fmt.Errorf("The column '%s' of the PostgreSQL table '%s' is %s, which does not map to its declared type %s (Flink's JDBC type mapping for PostgreSQL)",
				schema[i].Name, table, pgName(f.DataTypeOID), schema[i].Type)
		}
	}
	return nil
}

func mapsTo(oid uint32, t types.Type) bool {
	if t.Kind == types.Array {
		pt, ok := typeMap.TypeForOID(oid)
		if !ok {
			return false
		}
		ac, ok := pt.Codec.(*pgtype.ArrayCodec)
		return ok && mapsTo(ac.ElementType.OID, *t.Elem)
	}
	for _, o := range oidsFor(t) {
		if o == oid {
			return true
		}
	}
	return false
}

// fromPG converts a value pgx decoded (rows.Values) to the canonical Go
// form of t (core/types).
func fromPG(v any, t types.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("jdbc: cannot convert %T %v to %s", v, v, t)
	}
	switch t.Kind {
	case types.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case types.TinyInt:
		if n, ok := v.(int16); ok {
			if n < math.MinInt8 || n > math.MaxInt8 {
				return nil, fmt.Errorf("jdbc: value %d is out of the range of TINYINT", n)
			}
			return int8(n), nil
		}
	case types.SmallInt:
		if n, ok := v.(int16); ok {
			return n, nil
		}
	case types.Int:
		if n, ok := v.(int32); ok {
			return n, nil
		}
	case types.BigInt:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case types.Float:
		if f, ok := v.(float32); ok {
			return f, nil
		}
	case types.Double:
		if f, ok := v.(float64); ok {
			return f, nil
		}
	case types.Decimal:
		if n, ok := v.(pgtype.Numeric); ok {
			return numericToDecimal(n, t)
		}
	case types.Char, types.VarChar:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case types.VarBinary, types.Binary:
		if b, ok := v.([]byte); ok {
			return append([]byte(nil), b...), nil
		}
	case types.Date:
		if d, ok := v.(time.Time); ok {
			return int32(math.Floor(float64(d.Unix()) / 86400)), nil
		}
	case types.Time:
		if tm, ok := v.(pgtype.Time); ok {
			return int32(tm.Microseconds / 1000), nil
		}
	case types.Timestamp, types.TimestampLTZ:
		if ts, ok := v.(time.Time); ok {
			if t.Precision > 6 {
				return ts.UnixNano(), nil
			}
			return ts.UnixMicro(), nil
		}
	case types.Array:
		if xs, ok := v.([]any); ok {
			out := make([]any, len(xs))
			for i, x := range xs {
				c, err := fromPG(x, *t.Elem)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
	}
	return bad()
}

var bigTen = big.NewInt(10)

// numericToDecimal rescales a numeric to DECIMAL(p, s), rounding half up
// as Flink's DecimalData.fromBigDecimal; a value that does not fit p
// digits is an error.
func numericToDecimal(n pgtype.Numeric, t types.Type) (any, error) {
	if n.NaN || n.InfinityModifier != pgtype.Finite {
		return nil, fmt.Errorf("jdbc: numeric value NaN or infinity cannot be read as %s", t)
	}
	v := new(big.Int).Set(n.Int)
	shift := int(n.Exp) + t.Scale
	if shift >= 0 {
		v.Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(shift)), nil))
	} else {
		d := new(big.Int).Exp(bigTen, big.NewInt(int64(-shift)), nil)
		q, r := new(big.Int).QuoRem(v, d, new(big.Int))
		r.Abs(r).Mul(r, big.NewInt(2))
		if r.Cmp(d) >= 0 {
			if v.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		v = q
	}
	limit := new(big.Int).Exp(bigTen, big.NewInt(int64(t.Precision)), nil)
	if new(big.Int).Abs(v).Cmp(limit) >= 0 {
		return nil, fmt.Errorf("jdbc: numeric value does not fit %s", t)
	}
	return decimal128.FromBigInt(v), nil
}

// toPG converts a canonical value of t to a value pgx encodes as t's
// PostgreSQL type.
func toPG(v any, t types.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case types.TinyInt:
		if n, ok := v.(int8); ok {
			return int16(n), nil
		}
	case types.Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return pgtype.Numeric{Int: n.BigInt(), Exp: int32(-t.Scale), Valid: true}, nil
		}
	case types.Date:
		if d, ok := v.(int32); ok {
			return pgtype.Date{Time: time.Unix(int64(d)*86400, 0).UTC(), Valid: true}, nil
		}
	case types.Time:
		if ms, ok := v.(int32); ok {
			return pgtype.Time{Microseconds: int64(ms) * 1000, Valid: true}, nil
		}
	case types.Timestamp, types.TimestampLTZ:
		if n, ok := v.(int64); ok {
			tm := time.UnixMicro(n).UTC()
			if t.Precision > 6 {
				tm = time.Unix(0, n).UTC()
			}
			if t.Kind == types.Timestamp {
				return pgtype.Timestamp{Time: tm, Valid: true}, nil
			}
			return pgtype.Timestamptz{Time: tm, Valid: true}, nil
		}
	case types.Array:
		if xs, ok := v.([]any); ok {
			out := make([]any, len(xs))
			for i, x := range xs {
				c, err := toPG(x, *t.Elem)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
	default:
		return v, nil
	}
	return nil, fmt.Errorf("jdbc: cannot write %T as %s", v, t)
}
