package csv

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tablerun/tablerun/core/types"
)

// fuzzSchema covers the column types the CSV reader converts.
var fuzzSchema = types.Schema{
	{Name: "i", Type: types.IntT}, {Name: "b", Type: types.BigIntT}, {Name: "d", Type: types.DoubleT},
	{Name: "s", Type: types.StringT}, {Name: "t", Type: types.BooleanT}, {Name: "dt", Type: types.DateT},
	{Name: "ts", Type: types.TimestampOf(3)}, {Name: "dec", Type: types.DecimalOf(10, 2)},
	{Name: "arr", Type: types.ArrayOf(types.IntT)},
}

// FuzzReader feeds arbitrary bytes to the CSV reader: it may reject them
// with an error, never panic, and every batch it returns reads back.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"1,2,3.5,abc,true,2024-01-02,2024-01-02 03:04:05.678,12.34,\n",
		"\"a,b\",\"c\"\"d\",,,,,,,\n",
		"-1,9223372036854775807,1e308,,false,,,,\n1,2\n",
		"x\n", "", "\n\n\"unterminated\n",
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, lenient bool) {
		opts := DefaultOptions()
		opts.IgnoreParseErrors = lenient
		rd, err := NewReader(strings.NewReader(in), "fuzz.csv", fuzzSchema, nil, opts, 3)
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
