package json

import (
	"fmt"
	"testing"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/types"
)

// bidSchema and bidMessages are Nexmark bids as JSON messages (the Kafka
// target of issue 17).
var bidSchema = types.Schema{
	{Name: "auction", Type: types.BigIntT}, {Name: "bidder", Type: types.BigIntT}, {Name: "price", Type: types.BigIntT},
	{Name: "channel", Type: types.StringT}, {Name: "url", Type: types.StringT}, {Name: "dateTime", Type: types.TimestampOf(3)},
	{Name: "extra", Type: types.StringT},
}

func bidMessages(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"auction":%d,"bidder":%d,"price":%d,"channel":"channel-%d","url":"https://www.nexmark.com/item.htm?query=1&channel_id=%d","dateTime":"2024-01-01 00:%02d:%02d.%03d","extra":""}`,
			1000+i%997, 2000+i%7919, 100+i%50000, i%5, i%10000, i/60%60, i%60, i%1000))
	}
	return out
}

// BenchmarkDecodeBids decodes bids with the span decoder into Arrow
// builders, 4096 messages per batch; the figure is messages per second.
func BenchmarkDecodeBids(b *testing.B) {
	msgs := bidMessages(4096)
	dec, err := NewDecoder(bidSchema, nil, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	rows, err := format.NewRows(bidSchema)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			if err := dec.Decode(m, rows); err != nil {
				b.Fatal(err)
			}
		}
		rows.Batch().Rec.Release()
		n += len(msgs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkDecodeBidsReference is the map-per-message path the span
// decoder replaced (encoding/json, ConvertValue, types.AppendValue).
func BenchmarkDecodeBidsReference(b *testing.B) {
	msgs := bidMessages(4096)
	rows, err := format.NewRows(bidSchema)
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			vals, err := referenceRow(m, bidSchema, opts)
			if err != nil {
				b.Fatal(err)
			}
			for c, v := range vals {
				if err := types.AppendValue(rows.Builder(c), v, bidSchema[c].Type); err != nil {
					b.Fatal(err)
				}
			}
			rows.Commit(0)
		}
		rows.Batch().Rec.Release()
		n += len(msgs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msgs/s")
}
