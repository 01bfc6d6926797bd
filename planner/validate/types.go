package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
)

// ResolveType converts a data type as written in SQL into a logical type,
// applying Flink's defaults and precision checks.
func ResolveType(dt *ast.DataType) (types.Type, error) {
	if dt == nil {
		return types.Type{}, fmt.Errorf("missing data type")
	}
	t, err := resolveType(dt)
	if err != nil {
		return types.Type{}, err
	}
	t.NotNull = dt.NotNull
	return t, nil
}

func param(dt *ast.DataType, i, def int) int {
	if i < len(dt.Params) {
		return dt.Params[i]
	}
	return def
}

func checkParams(dt *ast.DataType, max int) error {
	if len(dt.Params) > max {
		return fmt.Errorf("Too many parameters for type %s", dt.Name)
	}
	return nil
}

func resolveType(dt *ast.DataType) (types.Type, error) {
	name := strings.ToUpper(dt.Name)
	simple := map[string]types.Type{
		"BOOLEAN": types.BooleanT, "BOOL": types.BooleanT, "TINYINT": types.TinyIntT, "SMALLINT": types.SmallIntT,
		"INT": types.IntT, "INTEGER": types.IntT, "BIGINT": types.BigIntT, "FLOAT": types.FloatT,
		"REAL": types.FloatT, "DOUBLE": types.DoubleT, "STRING": types.StringT, "BYTES": types.BytesT,
		"DATE": types.DateT,
	}
	if t, ok := simple[name]; ok {
		if err := checkParams(dt, 0); err != nil {
			return types.Type{}, err
		}
		return t, nil
	}
	switch name {
	case "DECIMAL", "DEC", "NUMERIC":
		if err := checkParams(dt, 2); err != nil {
			return types.Type{}, err
		}
		p, s := param(dt, 0, 10), param(dt, 1, 0)
		if p < 1 || p > types.MaxDecimalPrecision {
			return types.Type{}, fmt.Errorf("Decimal precision must be between 1 and 38 (both inclusive).")
		}
		if s < 0 || s > p {
			return types.Type{}, fmt.Errorf("Decimal scale must be between 0 and the precision %d (both inclusive).", p)
		}
		return types.DecimalOf(p, s), nil
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		if err := checkParams(dt, 1); err != nil {
			return types.Type{}, err
		}
		n := param(dt, 0, 1)
		if len(dt.Params) == 0 && (name == "VARCHAR" || name == "VARBINARY") {
			// Flink's type system gives VARCHAR and VARBINARY without a
			// length the maximum one (STRING, BYTES); CHAR and BINARY
			// default to 1 (FlinkTypeSystem.getDefaultPrecision)
			n = types.MaxLength
		}
		kinds := map[string]types.Kind{"CHAR": types.Char, "VARCHAR": types.VarChar, "BINARY": types.Binary, "VARBINARY": types.VarBinary}
		what := map[string]string{"CHAR": "Character string", "VARCHAR": "Variable character string", "BINARY": "Binary string", "VARBINARY": "Variable binary string"}
		if n < 1 || n > types.MaxLength {
			return types.Type{}, fmt.Errorf("%s length must be between 1 and %d (both inclusive).", what[name], types.MaxLength)
		}
		return types.Type{Kind: kinds[name], Precision: n}, nil
	case "TIME", "TIMESTAMP", "TIMESTAMP_LTZ":
		if err := checkParams(dt, 1); err != nil {
			return types.Type{}, err
		}
		def := 6
		if name == "TIME" {
			def = 0
		}
		p := param(dt, 0, def)
		if p < 0 || p > 9 {
			what := map[string]string{"TIME": "Time", "TIMESTAMP": "Timestamp", "TIMESTAMP_LTZ": "Local zoned timestamp"}[name]
			return types.Type{}, fmt.Errorf("%s precision must be between 0 and 9 (both inclusive).", what)
		}
		switch name {
		case "TIME":
			return types.TimeOf(p), nil
		case "TIMESTAMP":
			return types.TimestampOf(p), nil
		}
		return types.TimestampLTZOf(p), nil
	case "ARRAY":
		if dt.Elem == nil {
			return types.Type{}, fmt.Errorf("ARRAY needs an element type")
		}
		e, err := ResolveType(dt.Elem)
		if err != nil {
			return types.Type{}, err
		}
		return types.ArrayOf(e), nil
	case "MAP":
		if dt.Key == nil || dt.Value == nil {
			return types.Type{}, fmt.Errorf("MAP needs a key and a value type")
		}
		k, err := ResolveType(dt.Key)
		if err != nil {
			return types.Type{}, err
		}
		val, err := ResolveType(dt.Value)
		if err != nil {
			return types.Type{}, err
		}
		return types.MapOf(k, val), nil
	case "ROW":
		fields := make([]types.Field, len(dt.Fields))
		seen := map[string]bool{}
		for i, f := range dt.Fields {
			ft, err := ResolveType(f.Type)
			if err != nil {
				return types.Type{}, err
			}
			if seen[f.Name] {
				return types.Type{}, fmt.Errorf("Field names must be unique. Found duplicates: [%s]", f.Name)
			}
			seen[f.Name] = true
			fields[i] = types.Field{Name: f.Name, Type: ft, Description: f.Description}
		}
		return types.RowOf(fields...), nil
	case "INTERVAL":
		if dt.Interval == nil {
			return types.Type{}, fmt.Errorf("INTERVAL needs a qualifier")
		}
		return intervalType(*dt.Interval)
	case "NULL":
		return types.NullType, nil
	}
	return types.Type{}, unsupported("data type %s", dt.Name)
}

// intervalType maps an interval qualifier to a logical interval type.
func intervalType(q ast.IntervalQualifier) (types.Type, error) {
	start, end := strings.ToUpper(q.Start), strings.ToUpper(q.End)
	ym := map[string]bool{"YEAR": true, "MONTH": true, "QUARTER": true}
	dtu := map[string]bool{"WEEK": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true, "NANOSECOND": true}
	lead := q.StartPrecision
	if lead < 0 {
		lead = 2
	}
	frac := 6
	if end == "SECOND" && q.EndFracPrecision >= 0 {
		frac = q.EndFracPrecision
	}
	if start == "SECOND" && end == "" && q.StartFracPrecision >= 0 {
		frac = q.StartFracPrecision
	}
	unit := start
	if end != "" {
		unit = start + " TO " + end
	}
	switch {
	case ym[start] && (end == "" || ym[end]):
		if start == "QUARTER" {
			unit = "MONTH"
		}
		return types.Type{Kind: types.IntervalYearMonth, Scale: lead, Unit: unit}, nil
	case dtu[start] && (end == "" || dtu[end]):
		switch start {
		case "WEEK":
			unit = "DAY"
		case "MILLISECOND", "MICROSECOND", "NANOSECOND":
			unit = "SECOND"
		}
		if frac > 9 || lead < 1 || lead > 9 {
			return types.Type{}, fmt.Errorf("Interval precision out of range: %s", q.String())
		}
		return types.Type{Kind: types.IntervalDayTime, Precision: frac, Scale: lead, Unit: unit}, nil
	}
	return types.Type{}, fmt.Errorf("Illegal interval qualifier %s", q.String())
}
