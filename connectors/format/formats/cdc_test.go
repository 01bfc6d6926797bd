package formats

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// The products table of Flink's CDC format pages.
var products = types.Schema{fl("id", types.BigIntT), fl("name", types.StringT), fl("description", types.StringT), fl("weight", types.DecimalOf(10, 2))}

func dec(v int64) decimal128.Num { return decimal128.FromI64(v) }

func TestDebeziumJSON(t *testing.T) {
	opts := map[string]string{"format": "debezium-json"}
	// Flink's documented update event, a snapshot read, an insert, a delete
	// and a tombstone.
	update := `{
  "before": {"id": 111, "name": "scooter", "description": "Big 2-wheel scooter", "weight": 5.18},
  "after": {"id": 111, "name": "scooter", "description": "Big 2-wheel scooter", "weight": 5.15},
  "source": {"version": "1.1.1.Final", "connector": "mysql", "name": "dbserver1", "ts_ms": 1589362330000, "db": "inventory", "table": "products", "server_id": 223344},
  "op": "u",
  "ts_ms": 1589362330904,
  "transaction": null
}`
	rows, err := decodeAll(t, opts, products, nil, nil,
		`{"before":null,"after":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14},"op":"r"}`,
		update,
		`{"before":null,"after":{"id":102,"name":"car","description":null,"weight":1},"op":"c"}`,
		`{"before":{"id":102,"name":"car","description":null,"weight":1},"after":null,"op":"d"}`,
		``)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{"+I", int64(101), "scooter", "Small 2-wheel scooter", dec(314)},
		{"-U", int64(111), "scooter", "Big 2-wheel scooter", dec(518)},
		{"+U", int64(111), "scooter", "Big 2-wheel scooter", dec(515)},
		{"+I", int64(102), "car", nil, dec(100)},
		{"-D", int64(102), "car", nil, dec(100)},
	}, rows)

	// metadata columns follow the projected physical columns
	rows, err = decodeAll(t, opts, products, []int{3, 0}, []string{"source.timestamp", "ingestion-timestamp", "source.database", "source.table", "source.schema"}, update)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{"-U", dec(518), int64(111), int64(1589362330000000), int64(1589362330904000), "inventory", "products", nil},
		{"+U", dec(515), int64(111), int64(1589362330000000), int64(1589362330904000), "inventory", "products", nil},
	}, rows)

	// schema-include: the rows are inside "payload"; "schema" is metadata
	withSchema := `{"schema": {"type": "struct", "optional": false}, "payload": {"before": null, "after": {"id": 1, "name": "a"}, "op": "c", "ts_ms": 5}}`
	rows, err = decodeAll(t, map[string]string{"format": "debezium-json", "debezium-json.schema-include": "true"}, products, []int{0, 1}, []string{"schema", "ingestion-timestamp"}, withSchema)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1), "a", `{"type":"struct","optional":false}`, int64(5000)}}, rows)
	_, err = decodeAll(t, opts, products, nil, nil, withSchema)
	require.ErrorContains(t, err, `the "op" field is missing`)

	// bad messages
	for _, c := range []struct{ msg, err string }{
		{`{"before":null,"after":{"id":1},"op":"x"}`, `Corrupt Debezium JSON message '{"before":null,"after":{"id":1},"op":"x"}'. Unknown "op" value "x". The Debezium JSON message is '{"before":null,"after":{"id":1},"op":"x"}'`},
		{`{"before":null,"after":{"id":1},"op":"u"}`, `The "before" field of UPDATE message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.`},
		{`{"before":null,"after":null,"op":"d"}`, `The "before" field of DELETE message is null`},
		{`{"before":null,"after":{"id":"x"},"op":"c"}`, `Corrupt Debezium JSON message`},
		{`{"before":null,`, `Corrupt Debezium JSON message`},
	} {
		_, err := decodeAll(t, opts, products, nil, nil, update, c.msg)
		require.ErrorContains(t, err, c.err, c.msg)
	}
	rows, err = decodeAll(t, map[string]string{"format": "debezium-json", "debezium-json.ignore-parse-errors": "true"}, products, []int{0}, nil,
		`{"op":"x"}`, `{"before":null,"after":{"id":"x"},"op":"c"}`, `{oops`, `{"before":null,"after":{"id":7},"op":"c"}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(7)}}, rows)

	// encoding: +I/+U as "c" with after, -U/-D as "d" with before
	in := [][]any{{int64(1), "a", nil, dec(150)}, {int64(1), "a", nil, dec(150)}, {int64(1), "b", nil, dec(150)}, {int64(1), "b", nil, dec(150)}}
	kinds := []changelog.RowKind{changelog.Insert, changelog.UpdateBefore, changelog.UpdateAfter, changelog.Delete}
	msgs := encodeAll(t, opts, products, kinds, in)
	require.Equal(t, []string{
		`{"before":null,"after":{"id":1,"name":"a","description":null,"weight":1.50},"op":"c"}`,
		`{"before":{"id":1,"name":"a","description":null,"weight":1.50},"after":null,"op":"d"}`,
		`{"before":null,"after":{"id":1,"name":"b","description":null,"weight":1.50},"op":"c"}`,
		`{"before":{"id":1,"name":"b","description":null,"weight":1.50},"after":null,"op":"d"}`,
	}, msgs)
	rows, err = decodeAll(t, opts, products, nil, nil, msgs...)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1), "a", nil, dec(150)}, {"-D", int64(1), "a", nil, dec(150)}, {"+I", int64(1), "b", nil, dec(150)}, {"-D", int64(1), "b", nil, dec(150)}}, rows)
	msgs = encodeAll(t, map[string]string{"format": "debezium-json", "debezium-json.encode.ignore-null-fields": "true"}, products, kinds[:2], in[:2])
	require.Equal(t, []string{`{"after":{"id":1,"name":"a","weight":1.50},"op":"c"}`, `{"before":{"id":1,"name":"a","weight":1.50},"op":"d"}`}, msgs)
}

func TestCanalJSON(t *testing.T) {
	opts := map[string]string{"format": "canal-json"}
	// Flink's documented update event (canal writes values as strings),
	// with two rows, and a DDL event.
	update := `{
  "data": [{"id": "111", "name": "scooter", "description": "Big 2-wheel scooter", "weight": "5.18"},
           {"id": "112", "name": "car", "description": "x", "weight": "1"}],
  "database": "inventory", "es": 1589373560000, "id": 9, "isDdl": false,
  "mysqlType": {"id": "INTEGER", "name": "VARCHAR(255)", "description": "VARCHAR(512)", "weight": "FLOAT"},
  "old": [{"weight": "5.15"}, {"name": "bike", "description": null}],
  "pkNames": ["id"], "sql": "",
  "sqlType": {"id": 4, "name": 12, "description": 12, "weight": 7},
  "table": "products", "ts": 1589373560798, "type": "UPDATE"
}`
	rows, err := decodeAll(t, opts, products, nil, nil,
		`{"data":[{"id":"1","name":"a","description":null,"weight":"0.5"}],"database":"inventory","table":"products","type":"INSERT"}`,
		update,
		`{"data":null,"database":"inventory","table":"products","type":"CREATE","isDdl":true,"sql":"CREATE TABLE products (id INT)"}`,
		`{"data":[{"id":"1","name":"a","description":null,"weight":"0.5"}],"database":"inventory","table":"products","type":"DELETE"}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{"+I", int64(1), "a", nil, dec(50)},
		{"-U", int64(111), "scooter", "Big 2-wheel scooter", dec(515)},
		{"+U", int64(111), "scooter", "Big 2-wheel scooter", dec(518)},
		{"-U", int64(112), "bike", "x", dec(100)},
		{"+U", int64(112), "car", "x", dec(100)},
		{"-D", int64(1), "a", nil, dec(50)},
	}, rows)

	rows, err = decodeAll(t, opts, products, []int{0}, []string{"database", "table", "pk-names", "ingestion-timestamp", "event-timestamp", "sql-type"}, update)
	require.NoError(t, err)
	sqlType := &types.MapValue{Keys: []any{"description", "id", "name", "weight"}, Values: []any{int32(12), int32(4), int32(12), int32(7)}}
	require.Equal(t, []any{"-U", int64(111), "inventory", "products", []any{"id"}, int64(1589373560798000), int64(1589373560000000), sqlType}, rows[0])

	// database.include / table.include are regular expressions over the whole name
	rows, err = decodeAll(t, map[string]string{"format": "canal-json", "canal-json.table.include": "prod.*", "canal-json.database.include": "inv"}, products, []int{0}, nil, update)
	require.NoError(t, err)
	require.Empty(t, rows)
	rows, err = decodeAll(t, map[string]string{"format": "canal-json", "canal-json.table.include": "prod.*"}, products, []int{0}, nil, update)
	require.NoError(t, err)
	require.Len(t, rows, 4)

	_, err = decodeAll(t, opts, products, nil, nil, `{"data":[],"type":"ALTER"}`)
	require.EqualError(t, err, `Corrupt Canal JSON message '{"data":[],"type":"ALTER"}'. Unknown "type" value "ALTER". The Canal JSON message is '{"data":[],"type":"ALTER"}'`)

	msgs := encodeAll(t, opts, products, []changelog.RowKind{changelog.UpdateAfter, changelog.Delete}, [][]any{{int64(1), "a", "d", dec(1)}, {int64(2), nil, nil, nil}})
	require.Equal(t, []string{`{"data":[{"id":1,"name":"a","description":"d","weight":0.01}],"type":"INSERT"}`, `{"data":[{"id":2,"name":null,"description":null,"weight":null}],"type":"DELETE"}`}, msgs)
	rows, err = decodeAll(t, opts, products, nil, nil, msgs...)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1), "a", "d", dec(1)}, {"-D", int64(2), nil, nil, nil}}, rows)
}

func TestMaxwellJSON(t *testing.T) {
	opts := map[string]string{"format": "maxwell-json"}
	// Flink's documented maxwell update event
	update := `{
   "database":"test", "table":"e", "type":"update", "ts":1477053217, "xid":23396, "commit":true,
   "position":"master.000006:800911", "server_id":23042, "thread_id":108,
   "primary_key": [1, "2016-10-21 05:33:37.523000"], "primary_key_columns": ["id", "c"],
   "data":{"id":111, "name":"scooter", "description":"Big 2-wheel scooter", "weight":5.15},
   "old":{"weight":5.18, "description":null}
}`
	rows, err := decodeAll(t, opts, products, nil, []string{"database", "table", "primary-key-columns", "ingestion-timestamp"},
		`{"database":"test","table":"e","type":"insert","ts":1,"data":{"id":1,"name":"a","weight":2}}`, update,
		`{"database":"test","table":"e","type":"delete","ts":2,"data":{"id":1,"name":"a","weight":2}}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{"+I", int64(1), "a", nil, dec(200), "test", "e", nil, int64(1000000)},
		{"-U", int64(111), "scooter", nil, dec(518), "test", "e", []any{"id", "c"}, int64(1477053217000000)},
		{"+U", int64(111), "scooter", "Big 2-wheel scooter", dec(515), "test", "e", []any{"id", "c"}, int64(1477053217000000)},
		{"-D", int64(1), "a", nil, dec(200), "test", "e", nil, int64(2000000)},
	}, rows)
	_, err = decodeAll(t, opts, products, nil, nil, `{"type":"table-create","data":null}`)
	require.ErrorContains(t, err, `Unknown "type" value "table-create". The Maxwell JSON message is`)
	msgs := encodeAll(t, opts, products, []changelog.RowKind{changelog.Insert, changelog.UpdateBefore}, [][]any{{int64(1), "a", nil, nil}, {int64(1), "a", nil, nil}})
	require.Equal(t, []string{`{"data":{"id":1,"name":"a","description":null,"weight":null},"type":"insert"}`, `{"data":{"id":1,"name":"a","description":null,"weight":null},"type":"delete"}`}, msgs)
}

func TestOggJSON(t *testing.T) {
	opts := map[string]string{"format": "ogg-json"}
	// Flink's documented ogg update event
	update := `{
  "before": {"id": 111, "name": "scooter", "description": "Big 2-wheel scooter", "weight": 5.18},
  "after": {"id": 111, "name": "scooter", "description": "Big 2-wheel scooter", "weight": 5.15},
  "op_type": "U", "op_ts": "2020-05-13 15:40:06.000000", "current_ts": "2020-05-13 15:40:07.000000",
  "primary_keys": ["id"], "pos": "00000000000000000000143", "table": "PRODUCTS"
}`
	rows, err := decodeAll(t, opts, products, []int{0, 3}, nil, `{"after":{"id":1,"weight":1},"op_type":"I"}`, update, `{"before":{"id":1,"weight":1},"op_type":"D"}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1), dec(100)}, {"-U", int64(111), dec(518)}, {"+U", int64(111), dec(515)}, {"-D", int64(1), dec(100)}}, rows)
	_, err = decodeAll(t, opts, products, nil, nil, `{"op_type":"T"}`)
	require.ErrorContains(t, err, `Corrupt Ogg JSON message '{"op_type":"T"}'. Unknown "op_type" value "T". The Ogg JSON message is '{"op_type":"T"}'`)
	_, err = decodeAll(t, opts, products, nil, nil, `{"after":{"id":1},"op_type":"U"}`)
	require.ErrorContains(t, err, `if you are using Ogg Postgres Connector`)
	msgs := encodeAll(t, opts, products, []changelog.RowKind{changelog.UpdateAfter, changelog.Delete}, [][]any{{int64(1), nil, nil, nil}, {int64(1), nil, nil, nil}})
	require.Equal(t, []string{`{"before":null,"after":{"id":1,"name":null,"description":null,"weight":null},"op_type":"I"}`, `{"before":{"id":1,"name":null,"description":null,"weight":null},"after":null,"op_type":"D"}`}, msgs)
	_, err = decodeAll(t, opts, products, nil, []string{"table"})
	require.ErrorContains(t, err, "not supported yet: metadata key 'table'")
}

func TestCDCOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"format": "debezium-json", "debezium-json.schema-include": "maybe"}, "Could not parse value 'maybe' for key 'debezium-json.schema-include'."},
		{map[string]string{"format": "canal-json", "canal-json.timestamp-format.standard": "RFC"}, "Unsupported value 'RFC' for timestamp-format.standard. Supported values are [SQL, ISO-8601]."},
		{map[string]string{"format": "maxwell-json", "maxwell-json.ignore-parse-errors": "1"}, "Could not parse value '1' for key 'maxwell-json.ignore-parse-errors'."},
		{map[string]string{"format": "canal-json", "canal-json.table.include": "("}, "Invalid regular expression '(' for option 'canal-json.table.include'"},
	} {
		_, err := decodeAll(t, c.opts, products, nil, nil)
		require.ErrorContains(t, err, c.err)
	}
	f, err := Builtin().Open(map[string]string{"value.format": "debezium-json", "value.debezium-json.schema-include": "true"}, "value.format")
	require.NoError(t, err)
	_, err = f.NewEncoder(products)
	require.EqualError(t, err, "Debezium JSON serialization doesn't support 'value.debezium-json.schema-include' option been set to true.")
	require.Equal(t, changelog.All, f.DecodeMode())
	var keys []string
	for _, m := range f.Metadata() {
		keys = append(keys, m.Key)
	}
	require.Equal(t, []string{"schema", "ingestion-timestamp", "source.timestamp", "source.database", "source.schema", "source.table", "source.properties"}, keys)
}
