package json

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tablerun/tablerun/core/types"
)

// fuzzSchema covers the column types the JSON reader converts.
var fuzzSchema = types.Schema{
	{Name: "i", Type: types.IntT}, {Name: "b", Type: types.BigIntT}, {Name: "d", Type: types.DoubleT},
	{Name: "s", Type: types.StringT}, {Name: "t", Type: types.BooleanT}, {Name: "dt", Type: types.DateT},
	{Name: "ts", Type: types.TimestampOf(3)}, {Name: "dec", Type: types.DecimalOf(10, 2)},
	{Name: "arr", Type: types.ArrayOf(types.IntT)}, {Name: "m", Type: types.MapOf(types.StringT, types.IntT)},
	{Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.IntT}, types.Field{Name: "y", Type: types.StringT})},
}

// FuzzReader feeds arbitrary bytes to the JSON reader: it may reject them
// with an error, never panic, and every batch it returns reads back.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		`{"i":1,"b":2,"d":3.5,"s":"abc","t":true,"dt":"2024-01-02","ts":"2024-01-02 03:04:05.678","dec":12.34,"arr":[1,null],"m":{"k":1},"r":{"x":1,"y":"z"}}` + "\n",
		`{"i":"x"}` + "\n" + `[1,2]` + "\n",
		`{"i":1e400,"b":9223372036854775808,"m":{"":null}}`, "", "{\n", `{"r":{"x":{"x":{}}}}`,
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, lenient bool) {
		opts := DefaultOptions()
		opts.IgnoreParseErrors = lenient
		rd, err := NewReader(strings.NewReader(in), "fuzz.json", fuzzSchema, nil, opts, 3)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			_ = types.RecordRows(rec, fuzzSchema)
			rec.Release()
		}
	})
}
