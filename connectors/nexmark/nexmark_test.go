package nexmark

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

type collect struct {
	recs    []arrow.RecordBatch
	markers int
	stopAt  int // cancel after this many rows (0: never)
	rows    int
	cancel  context.CancelFunc
}

func (c *collect) Emit(ctx context.Context, b vectorized.Batch) error {
	c.recs = append(c.recs, b.Rec)
	c.rows += b.NumRows()
	if c.stopAt > 0 && c.rows >= c.stopAt && c.cancel != nil {
		c.cancel()
	}
	return nil
}

func (c *collect) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	c.markers++
	return nil
}

func cfgWith(t *testing.T, opts map[string]string) Config {
	t.Helper()
	c, err := ParseConfig(opts)
	require.NoError(t, err)
	return c
}

// rows returns all rows of a source's output as canonical Go values.
func rows(t *testing.T, cfg Config, schema types.Schema, proj []int, batch int) [][]any {
	t.Helper()
	src, err := NewSource(cfg, schema, proj, batch)
	require.NoError(t, err)
	c := &collect{}
	require.NoError(t, src.Run(context.Background(), c))
	out := types.Schema{}
	if proj == nil {
		out = schema
	} else {
		for _, p := range proj {
			out = append(out, schema[p])
		}
	}
	var all [][]any
	for _, r := range c.recs {
		all = append(all, types.RecordRows(r, out)...)
	}
	return all
}

const base = DefaultBaseTime * 1000 // µs

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name string
		opts map[string]string
		err  string
		chk  func(c Config)
	}{
		{"defaults", nil, "", func(c Config) {
			require.Equal(t, DefaultConfig(), c)
			require.False(t, c.Bounded())
			require.Equal(t, int64(math.MaxInt64/(50*500)), c.NumEvents())
		}},
		{"bench", map[string]string{"first-event.rate": "10000000", "next-event.rate": "10000000", "events.num": "100000000",
			"person.proportion": "1", "auction.proportion": "3", "bid.proportion": "46"}, "", func(c Config) {
			require.Equal(t, int64(10000000), c.FirstEventRate)
			require.Equal(t, int64(100000000), c.NumEvents())
			require.True(t, c.Bounded())
		}},
		{"v2", map[string]string{"events.num": "200", "keep-alive": "true", "stop-at": "150", "max-emit-speed": "true"}, "", func(c Config) {
			require.False(t, c.Bounded())
			require.Equal(t, int64(150), c.NumEvents())
		}},
		{"sizes", map[string]string{"person.avg-size": "1kb", "bid.avg-size": "50 b", "auction.avg-size": "500"}, "", func(c Config) {
			require.Equal(t, int64(1024), c.PersonAvgSize)
			require.Equal(t, int64(50), c.BidAvgSize)
			require.Equal(t, int64(500), c.AuctionAvgSize)
		}},
		{"rates", map[string]string{"rate.shape": "sine", "rate.period": "10 min", "rate.limited": "true"}, "", func(c Config) {
			require.Equal(t, "SINE", c.RateShape)
			require.Equal(t, 10*time.Minute, c.RatePeriod)
		}},
		{"base time text", map[string]string{"base-time": "2020-01-02 03:04:05.678"}, "", func(c Config) {
			require.Equal(t, time.Date(2020, 1, 2, 3, 4, 5, 678e6, time.UTC).UnixMilli(), c.BaseTime)
		}},
		{"base time ms", map[string]string{"base-time": "0", "seed": "7", "bid.bidder-double-offset": "false"}, "", func(c Config) {
			require.Equal(t, int64(0), c.BaseTime)
			require.Equal(t, uint64(7), c.Seed)
			require.False(t, c.BidderOffset)
		}},
		{"bad rate", map[string]string{"first-event.rate": "x"}, "Could not parse value 'x' for key 'first-event.rate'.", nil},
		{"zero rate", map[string]string{"first-event.rate": "0"}, "Could not parse value '0' for key 'first-event.rate'.", nil},
		{"negative events", map[string]string{"events.num": "-1"}, "Could not parse value '-1' for key 'events.num'.", nil},
		{"bad bool", map[string]string{"keep-alive": "yes"}, "Could not parse value 'yes' for key 'keep-alive'.", nil},
		{"bad shape", map[string]string{"rate.shape": "round"}, "Could not parse value 'round' for key 'rate.shape'.", nil},
		{"bad size", map[string]string{"bid.avg-size": "1 parsec"}, "Could not parse value '1 parsec' for key 'bid.avg-size'.", nil},
		{"no events", map[string]string{"person.proportion": "0", "auction.proportion": "0", "bid.proportion": "0"}, "must be positive", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(tc.opts)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.chk(c)
		})
	}
}

// TestGoldenStructure checks values derived by hand from SPEC.md §3.1–3.3
// (no random draws involved): kinds, ids and event times of the first
// events of the default configuration.
func TestGoldenStructure(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "60"})
	all := rows(t, cfg, Schema(), nil, 7)
	require.Len(t, all, 60)
	// k = 0, 1: eids 2, 3 → auctions 1001, 1002 (lastAuctionId(2) = 1, (3) = 2), en 1, 2 → +0 ms.
	// k = 2..47: eids 4..49 → bids. k = 48: eid 50 → person 1001 (lastPersonId(50) = 1), en 49 → +4 ms.
	// k = 49..51: eids 51..53 → auctions 1003..1005, en 50..52 → +5 ms. k = 52..59: bids.
	type want struct {
		k    int
		kind int32
		id   int64
		ms   int64
	}
	for _, w := range []want{{0, 1, 1001, 0}, {1, 1, 1002, 0}, {2, 2, 0, 0}, {9, 2, 0, 1}, {47, 2, 0, 4},
		{48, 0, 1001, 4}, {49, 1, 1003, 5}, {50, 1, 1004, 5}, {51, 1, 1005, 5}, {52, 2, 0, 5}, {59, 2, 0, 6}} {
		r := all[w.k]
		require.Equal(t, w.kind, r[0], "k=%d", w.k)
		nested := r[1+w.kind].([]any)
		for j := 1; j <= 3; j++ {
			if int32(j-1) != w.kind {
				require.Nil(t, r[j], "k=%d col %d", w.k, j)
			}
		}
		ts := base + w.ms*1000
		switch w.kind {
		case KindPerson:
			require.Equal(t, w.id, nested[0])
			require.Equal(t, ts, nested[6])
		case KindAuction:
			require.Equal(t, w.id, nested[0])
			require.Equal(t, ts, nested[5])
			require.Greater(t, nested[6].(int64), ts, "expires after dateTime")
			// seller: hot (lastPersonId/100)·100 = 0, else num − active + uniform(active+10)
			// with num = lastPersonId+1 (1 for eids 2, 3; 2 for eids 51..53); + 1000.
			lastP := int64(w.k+2) / 50
			require.GreaterOrEqual(t, nested[7].(int64), int64(1000))
			require.LessOrEqual(t, nested[7].(int64), 1000+lastP+10)
		case KindBid:
			require.Equal(t, ts, nested[5])
			// lastAuctionId(eid < 50) = 2: hot auction 1000, else 1000 + uniform(2-0+1+10).
			require.GreaterOrEqual(t, nested[0].(int64), int64(1000))
			require.LessOrEqual(t, nested[0].(int64), int64(1012))
			// lastPersonId(eid < 50) = 0: hot bidder 0+1, else uniform(1+10); + 2000.
			require.GreaterOrEqual(t, nested[1].(int64), int64(2000))
			require.LessOrEqual(t, nested[1].(int64), int64(2010))
		}
	}
}

// ---- an independent, naive transcription of SPEC.md §3.4–3.7 with the
// documented RNG (SplitMix64, state mix64(eid·γ ^ seed), uniform(n) = high
// word of next·n, double = (next >> 11) / 2^53) ----

type refRNG struct{ s uint64 }

func refMix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
func (r *refRNG) next() uint64 { r.s += 0x9E3779B97F4A7C15; return refMix(r.s) }
func (r *refRNG) intn(n int64) int64 {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}
func (r *refRNG) double() float64 { return float64(r.next()>>11) / float64(uint64(1)<<53) }
func (r *refRNG) str(max int) string {
	n := 3 + int(r.intn(int64(max-3)))
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if r.intn(13) == 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteByte(byte('a' + r.intn(26)))
		}
	}
	return strings.Trim(sb.String(), " ")
}
func (r *refRNG) price() int64 { return int64(math.Floor(math.Pow(10, r.double()*6)*100 + 0.5)) }
func (r *refRNG) extra(cur, avg int) string {
	if cur > avg {
		return ""
	}
	d := avg - cur
	delta := int(math.Floor(float64(d)*0.2 + 0.5))
	size := d - delta
	if delta > 0 {
		size += int(r.intn(int64(2 * delta)))
	}
	off := int(r.intn(int64(PadLen - size + 1)))
	return string(getPools(0).pad[off : off+size])
}

func refPerson(eid int64, ms int64) []any {
	r := refRNG{s: refMix(uint64(eid)*0x9E3779B97F4A7C15 ^ 0)}
	id := eid/50 + 1000 // defaults: lastPersonId(eid) = eid / 50
	name := firstNames[r.intn(11)] + " " + lastNames[r.intn(9)]
	email := r.str(7) + "@" + r.str(5) + ".com"
	cc := fmt.Sprintf("%04d %04d %04d %04d", r.intn(10000), r.intn(10000), r.intn(10000), r.intn(10000))
	city := usCities[r.intn(10)]
	state := usStates[r.intn(6)]
	extra := r.extra(8+len(name)+len(email)+len(cc)+len(city)+len(state), 200)
	return []any{id, name, email, cc, city, state, ms * 1000, extra}
}

func refBid(eid int64, ms int64) []any {
	r := refRNG{s: refMix(uint64(eid)*0x9E3779B97F4A7C15 ^ 0)}
	epoch, off := eid/50, eid%50
	lastA := epoch*3 + 2 // off >= 4 for a bid
	_ = off
	var auction int64
	if r.intn(2) > 0 {
		auction = lastA / 100 * 100
	} else {
		lo := max(lastA-100, 0)
		auction = lo + r.intn(lastA-lo+1+10)
	}
	lastP := eid / 50
	var bidder int64
	if r.intn(4) > 0 {
		bidder = lastP/100*100 + 1
	} else {
		num := lastP + 1
		active := min(num, 1000)
		bidder = num - active + r.intn(active+10)
	}
	p := r.price()
	var channel, url string
	if r.intn(2) > 0 {
		i := r.intn(4)
		channel, url = hotChannels[i], getPools(0).hotURLs[i]
	} else {
		j := r.intn(10000)
		channel, url = fmt.Sprintf("channel-%d", j), getPools(0).urls[j]
	}
	extra := r.extra(32, 100)
	return []any{auction + 1000, bidder + 2000, p, channel, url, ms * 1000, extra}
}

func refAuction(eid, en int64, ms int64, delayUs float64) []any {
	r := refRNG{s: refMix(uint64(eid)*0x9E3779B97F4A7C15 ^ 0)}
	epoch, off := eid/50, eid%50
	if off < 1 {
		epoch--
		off = 2
	} else {
		off--
	}
	id := epoch*3 + off + 1000
	var seller int64
	if r.intn(4) > 0 {
		seller = eid / 50 / 100 * 100
	} else {
		num := eid/50 + 1
		active := min(num, 1000)
		seller = num - active + r.intn(active+10)
	}
	category := 10 + r.intn(5)
	initial := r.price()
	future := DefaultBaseTime + int64(float64(en+1666)*delayUs)/1000
	expires := ms + 1 + r.intn(max(2*(future-ms), 1))
	item := r.str(20)
	desc := r.str(100)
	reserve := initial + r.price()
	extra := r.extra(8+len(item)+len(desc)+40, 500)
	return []any{id, item, desc, initial, reserve, ms * 1000, expires * 1000, seller + 1000, category, extra}
}

// TestGoldenAgainstSpec compares the generator with the naive
// transcription above, event by event, over 3 epochs of hot keys.
func TestGoldenAgainstSpec(t *testing.T) {
	const n = 12000
	cfg := cfgWith(t, map[string]string{"events.num": fmt.Sprint(n)})
	all := rows(t, cfg, Schema(), nil, 0)
	require.Len(t, all, n)
	counts := [3]int{}
	for k, r := range all {
		en, eid := int64(k+1), int64(k+2)
		ms := DefaultBaseTime + en*100/1000
		kind := r[0].(int32)
		counts[kind]++
		switch kind {
		case KindPerson:
			require.Equal(t, refPerson(eid, ms), r[1], "person k=%d", k)
		case KindAuction:
			require.Equal(t, refAuction(eid, en, ms, 100), r[2], "auction k=%d", k)
		case KindBid:
			require.Equal(t, refBid(eid, ms), r[3], "bid k=%d", k)
		}
	}
	require.Equal(t, [3]int{240, 720, 11040}, counts)
}

func TestDeterminismAndSplits(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "5000"})
	a, err := NewSource(cfg, Schema(), nil, 300)
	require.NoError(t, err)
	b, err := NewSource(cfg, Schema(), nil, 300)
	require.NoError(t, err)
	ca, cb := &collect{}, &collect{}
	require.NoError(t, a.Run(context.Background(), ca))
	require.NoError(t, b.Run(context.Background(), cb))
	require.Len(t, ca.recs, 17)
	require.Len(t, cb.recs, 17)
	for i := range ca.recs {
		require.True(t, array.RecordEqual(ca.recs[i], cb.recs[i]), "batch %d", i)
	}
	require.Zero(t, ca.markers)
	// Batch size does not change the events.
	r1 := rows(t, cfg, Schema(), nil, 300)
	r2 := rows(t, cfg, Schema(), nil, 1)
	require.Equal(t, r1, r2)
	// Three splits together produce every batch exactly once.
	got := make([]arrow.RecordBatch, 17)
	for s := 0; s < 3; s++ {
		src, err := NewSource(cfg, Schema(), nil, 300)
		require.NoError(t, err)
		require.NoError(t, src.SetSplit(s, 3))
		c := &collect{}
		require.NoError(t, src.Run(context.Background(), c))
		for j, r := range c.recs {
			got[s+3*j] = r
		}
	}
	for i := range got {
		require.True(t, array.RecordEqual(ca.recs[i], got[i]), "batch %d", i)
	}
	src, _ := NewSource(cfg, Schema(), nil, 300)
	require.Error(t, src.SetSplit(3, 3))
	// Another seed changes values but not structure.
	other := rows(t, cfgWith(t, map[string]string{"events.num": "100", "seed": "42"}), Schema(), nil, 0)
	require.NotEqual(t, r1[:100], other)
	for i := range other {
		require.Equal(t, r1[i][0], other[i][0])
	}
}

func TestProportionsAndRanges(t *testing.T) {
	const n = 100000
	cfg := cfgWith(t, map[string]string{"events.num": fmt.Sprint(n)})
	all := rows(t, cfg, Schema(), nil, 0)
	var counts [3]int
	email := regexp.MustCompile(`^[a-z ]*@[a-z ]*\.com$`)
	card := regexp.MustCompile(`^\d{4} \d{4} \d{4} \d{4}$`)
	word := regexp.MustCompile(`^([a-z][a-z ]*[a-z]|[a-z]?)$`)
	url := regexp.MustCompile(`^https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1(&channel_id=-?\d+)?$`)
	padOK := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 'H' || s[i] > 'z' {
				return false
			}
		}
		return true
	}
	in := func(s string, set []string) bool {
		for _, x := range set {
			if x == s {
				return true
			}
		}
		return false
	}
	var lastTS int64
	var nextPerson, nextAuction int64 = 1001, 1001
	var hotAuction, hotBidder, bands [3]int
	_ = hotAuction
	var hotA, hotB, bids, hotCh, withChannelID int
	for k, r := range all {
		kind := r[0].(int32)
		counts[kind]++
		row := r[1+kind].([]any)
		var ts int64
		switch kind {
		case KindPerson:
			require.Equal(t, nextPerson, row[0])
			nextPerson++
			name := strings.Split(row[1].(string), " ")
			require.Len(t, name, 2)
			require.True(t, in(name[0], firstNames) && in(name[1], lastNames), row[1])
			require.Regexp(t, email, row[2])
			require.Regexp(t, card, row[3])
			require.True(t, in(row[4].(string), usCities))
			require.True(t, in(row[5].(string), usStates))
			ts = row[6].(int64)
			cur := 8 + len(row[1].(string)) + len(row[2].(string)) + 19 + len(row[4].(string)) + len(row[5].(string))
			d := 200 - cur
			delta := int(math.Floor(float64(d)*0.2 + 0.5))
			l := len(row[7].(string))
			require.True(t, l >= d-delta && l <= d+delta-1, "person extra length %d (d=%d)", l, d)
			require.True(t, padOK(row[7].(string)))
		case KindAuction:
			require.Equal(t, nextAuction, row[0])
			nextAuction++
			item, desc := row[1].(string), row[2].(string)
			require.LessOrEqual(t, len(item), 19)
			require.LessOrEqual(t, len(desc), 99)
			require.Regexp(t, word, item)
			require.Regexp(t, word, desc)
			ib, rs := row[3].(int64), row[4].(int64)
			require.True(t, ib >= 100 && ib <= 100_000_000, ib)
			require.True(t, rs > ib && rs-ib >= 100 && rs-ib <= 100_000_000)
			ts = row[5].(int64)
			require.Greater(t, row[6].(int64), ts)
			// horizon: timestamp(en+1666) - timestamp(en) ≈ 166 ms → expires within 2·167 ms.
			require.LessOrEqual(t, row[6].(int64)-ts, int64(2*167+1)*1000)
			seller := row[7].(int64)
			require.GreaterOrEqual(t, seller, int64(1000))
			require.LessOrEqual(t, seller, nextPerson+10)
			cat := row[8].(int64)
			require.True(t, cat >= 10 && cat <= 14)
			d := 500 - (8 + len(item) + len(desc) + 40)
			delta := int(math.Floor(float64(d)*0.2 + 0.5))
			l := len(row[9].(string))
			require.True(t, l >= d-delta && l <= d+delta-1, "auction extra length %d", l)
		case KindBid:
			bids++
			eid := int64(k + 2)
			lastA := (eid/50)*3 + 2
			a := row[0].(int64)
			require.GreaterOrEqual(t, a, int64(1000))
			require.LessOrEqual(t, a, lastA+1000+10)
			if a == lastA/100*100+1000 {
				hotA++
			}
			lastP := eid / 50
			bd := row[1].(int64)
			require.GreaterOrEqual(t, bd, int64(2000))
			require.LessOrEqual(t, bd, lastP+2000+10)
			if bd == lastP/100*100+1+2000 {
				hotB++
			}
			p := row[2].(int64)
			require.True(t, p >= 100 && p <= 100_000_000, p)
			switch {
			case p < 10000:
				bands[0]++
			case p < 1000000:
				bands[1]++
			default:
				bands[2]++
			}
			ch, u := row[3].(string), row[4].(string)
			require.Regexp(t, url, u)
			if in(ch, hotChannels) {
				hotCh++
				require.NotContains(t, u, "channel_id")
			} else {
				require.True(t, strings.HasPrefix(ch, "channel-"), ch)
				if strings.Contains(u, "&channel_id=") {
					withChannelID++
				}
			}
			ts = row[5].(int64)
			l := len(row[6].(string))
			require.True(t, l >= 54 && l <= 81, "bid extra length %d", l)
			require.True(t, padOK(row[6].(string)))
		}
		// Event time: non-decreasing, exactly base + en/10 ms at 10,000 events/s.
		require.Equal(t, base+int64(k+1)/10*1000, ts)
		require.GreaterOrEqual(t, ts, lastTS)
		lastTS = ts
	}
	_ = hotBidder
	// 1:3:46 per 50 event ids (eids 2..100001): persons at eid%50 = 0 (50..100000),
	// auctions at eid%50 = 1 (51..100001), 2 (2..99952), 3 (3..99953).
	require.Equal(t, [3]int{2000, 6000, 92000}, counts)
	frac := func(x, of int) float64 { return float64(x) / float64(of) }
	// Hot auction: 50% by the hot draw plus the share of random draws that hit it.
	require.InDelta(t, 0.5, frac(hotA, bids), 0.03)
	require.InDelta(t, 0.75, frac(hotB, bids), 0.03)
	require.InDelta(t, 0.5, frac(hotCh, bids), 0.01)
	require.InDelta(t, 0.9, frac(withChannelID, bids-hotCh), 0.02)
	for _, b := range bands {
		require.InDelta(t, 1.0/3, frac(b, bids), 0.01)
	}
}

func TestProjectionAndSubsets(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "3000"})
	full := rows(t, cfg, Schema(), nil, 0)
	bidOnly := rows(t, cfg, Schema(), []int{3, 0}, 0)
	for i := range full {
		require.Equal(t, []any{full[i][3], full[i][0]}, bidOnly[i])
	}
	// A table declaring a subset of the nested fields, in another order.
	sub := types.Schema{
		{Name: "bid", Type: types.RowOf(types.Field{Name: "price", Type: types.BigIntT}, types.Field{Name: "auction", Type: types.BigIntT},
			types.Field{Name: "dateTime", Type: types.TimestampOf(3)})},
		{Name: "event_type", Type: types.IntT},
	}
	part := rows(t, cfg, sub, nil, 0)
	for i := range full {
		if full[i][3] == nil {
			require.Nil(t, part[i][0])
			continue
		}
		b := full[i][3].([]any)
		require.Equal(t, []any{b[2], b[0], b[5]}, part[i][0])
	}
	// No columns at all (SELECT COUNT(*)): batches carry only a row count.
	src, err := NewSource(cfg, Schema(), []int{}, 1000)
	require.NoError(t, err)
	c := &collect{}
	require.NoError(t, src.Run(context.Background(), c))
	require.Equal(t, 3000, c.rows)
	require.Len(t, c.recs, 3)
	require.Zero(t, c.recs[0].NumCols())
	// Event type only.
	et := rows(t, cfg, Schema(), []int{0}, 0)
	for i := range full {
		require.Equal(t, full[i][0], et[i][0])
	}
}

func TestSchemaErrors(t *testing.T) {
	cfg := DefaultConfig()
	cases := []struct {
		name   string
		schema types.Schema
		err    string
	}{
		{"unknown column", types.Schema{{Name: "foo", Type: types.IntT}}, "unknown column 'foo'"},
		{"bad event_type", types.Schema{{Name: "event_type", Type: types.BigIntT}}, "'event_type' must be INT"},
		{"not a row", types.Schema{{Name: "bid", Type: types.BigIntT}}, "'bid' must be a ROW"},
		{"unknown field", types.Schema{{Name: "bid", Type: types.RowOf(types.Field{Name: "x", Type: types.BigIntT})}}, "has no field 'x'"},
		{"bad field type", types.Schema{{Name: "person", Type: types.RowOf(types.Field{Name: "name", Type: types.BigIntT})}}, "'person.name' must be VARCHAR"},
		{"duplicate", types.Schema{{Name: "bid", Type: types.RowOf(types.Field{Name: "price", Type: types.BigIntT}, types.Field{Name: "price", Type: types.BigIntT})}}, "declared twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSource(cfg, tc.schema, nil, 0)
			require.ErrorContains(t, err, tc.err)
		})
	}
	_, err := NewSource(cfg, Schema(), []int{9}, 0)
	require.ErrorContains(t, err, "out of range")
}

func TestUnboundedCancel(t *testing.T) {
	src, err := NewSource(DefaultConfig(), Schema(), []int{3}, 1000)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &collect{stopAt: 5000, cancel: cancel}
	err = src.Run(ctx, c)
	require.True(t, errors.Is(err, context.Canceled))
	require.Equal(t, 5000, c.rows)
}

func TestKeepAliveAndStopAt(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "1000", "stop-at": "250", "keep-alive": "true"})
	src, err := NewSource(cfg, Schema(), nil, 100)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	c := &collect{}
	err = src.Run(ctx, c)
	require.True(t, errors.Is(err, context.DeadlineExceeded))
	require.Equal(t, 250, c.rows)
}

func TestPacedEmission(t *testing.T) {
	// 200 events at 1,000 events/s span 200 ms of event time.
	cfg := cfgWith(t, map[string]string{"events.num": "200", "first-event.rate": "1000", "max-emit-speed": "false"})
	src, err := NewSource(cfg, Schema(), []int{0}, 0)
	require.NoError(t, err)
	start := time.Now()
	c := &collect{}
	require.NoError(t, src.Run(context.Background(), c))
	require.Equal(t, 200, c.rows)
	require.GreaterOrEqual(t, time.Since(start), 190*time.Millisecond)
	require.Greater(t, len(c.recs), 1)
}

func TestProportionsOption(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "1000", "person.proportion": "1", "auction.proportion": "1", "bid.proportion": "2", "bid.bidder-double-offset": "false"})
	all := rows(t, cfg, Schema(), nil, 0)
	var counts [3]int
	for k, r := range all {
		kind := r[0].(int32)
		counts[kind]++
		// eid % 4: 0 person, 1 auction, 2..3 bid.
		require.Equal(t, [4]int32{0, 1, 2, 2}[(k+2)%4], kind)
		if kind == KindBid {
			require.Less(t, r[3].([]any)[1].(int64), int64(2000), "bidder offset added once")
		}
	}
	require.Equal(t, [3]int{250, 250, 500}, counts)
}

func benchGenerate(b *testing.B, proj []int) {
	cfg := DefaultConfig()
	src, err := NewSource(cfg, Schema(), proj, 0)
	require.NoError(b, err)
	const n = vectorized.DefaultBatchSize
	b.ResetTimer()
	cpu0 := cpuTime()
	var k int64
	for i := 0; i < b.N; i++ {
		rec := src.Generate(k, n)
		rec.Release()
		k += n
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "events/s")
	// Process CPU time (GC included): the per-core rate on a loaded machine.
	b.ReportMetric(float64(b.N)*n/cpu.Seconds(), "events/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkGenerateAll(b *testing.B)        { benchGenerate(b, nil) }
func BenchmarkGenerateBid(b *testing.B)        { benchGenerate(b, []int{3}) }
func BenchmarkGenerateBidAndType(b *testing.B) { benchGenerate(b, []int{0, 3}) }
