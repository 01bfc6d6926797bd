package nexmark

import (
	"math"
	"math/bits"
	"strconv"
	"sync"
)

// Event kinds, as the event_type column carries them.
const (
	KindPerson  = 0
	KindAuction = 1
	KindBid     = 2
)

// rng is SplitMix64. Every event draws from its own rng, seeded from the
// event id and the configured seed (see newEventRNG), so an event is a
// pure function of (configuration, event id).
type rng struct{ s uint64 }

const gamma = 0x9E3779B97F4A7C15

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// newEventRNG seeds the generator of event eid: s = mix64(eid*γ ^ seed).
func newEventRNG(seed uint64, eid int64) rng {
	return rng{s: mix64(uint64(eid)*gamma ^ seed)}
}

func (r *rng) next() uint64 {
	r.s += gamma
	return mix64(r.s)
}

// uniform returns a value in [0, n) (0 when n <= 0): the high word of
// next() × n.
func (r *rng) uniform(n int64) int64 {
	if n <= 0 {
		r.next()
		return 0
	}
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// float returns a value in [0, 1) with 53 random bits.
func (r *rng) float() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}

// String pools of the generator, as Flink's (fixed lists) plus the
// channel/URL table and the padding string, which tablerun builds from a
// seeded rng instead of an unseeded one.
var (
	firstNames  = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames   = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	usCities    = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	usStates    = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	hotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// poolSalt seeds the pool rng: rng{s: mix64(seed ^ poolSalt)}.
const poolSalt = 0x6e65786d61726b21 // "nexmark!"

// pools are the per-seed precomputed strings.
type pools struct {
	hotURLs  [4]string
	channels [NumChannels]string
	urls     [NumChannels]string
	// chanURL holds channel_j followed by url_j for every j, contiguously
	// (one cache-friendly read per bid); chanURLOff[j] is where channel_j
	// starts, chanURLOff[j]+chanLen[j] where url_j starts.
	chanURL    []byte
	chanURLOff [NumChannels + 1]uint32
	chanLen    [NumChannels]uint8
	pad        []byte // PadLen characters
}

var (
	poolMu    sync.Mutex
	poolCache = map[uint64]*pools{}
)

// getPools returns the pools of a seed, building them once: the 4 hot
// URLs first, then for j = 0..9999 url_j (with probability 9/10 followed by
// "&channel_id=" + abs(Integer.reverse(j)) in Java int arithmetic), then the
// padding string.
func getPools(seed uint64) *pools {
	poolMu.Lock()
	defer poolMu.Unlock()
	if p, ok := poolCache[seed]; ok {
		return p
	}
	r := rng{s: mix64(seed ^ poolSalt)}
	p := &pools{}
	for i := range p.hotURLs {
		p.hotURLs[i] = baseURL(&r)
	}
	for j := 0; j < NumChannels; j++ {
		p.channels[j] = "channel-" + strconv.Itoa(j)
		u := baseURL(&r)
		if r.uniform(10) > 0 {
			u += "&channel_id=" + strconv.FormatInt(int64(javaAbs(int32(bits.Reverse32(uint32(j))))), 10)
		}
		p.urls[j] = u
	}
	for j := 0; j < NumChannels; j++ {
		p.chanURLOff[j] = uint32(len(p.chanURL))
		p.chanLen[j] = uint8(len(p.channels[j]))
		p.chanURL = append(p.chanURL, p.channels[j]...)
		p.chanURL = append(p.chanURL, p.urls[j]...)
	}
	p.chanURLOff[NumChannels] = uint32(len(p.chanURL))
	p.pad = make([]byte, PadLen)
	for i := range p.pad {
		// Java: (char) ('a' + nextInt() % 26) over signed ints.
		p.pad[i] = byte('a' + int32(uint32(r.next()>>32))%26)
	}
	poolCache[seed] = p
	return p
}

// javaAbs is Math.abs(int): abs(MinInt32) stays MinInt32.
func javaAbs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func baseURL(r *rng) string {
	var b []byte
	b = append(b, "https://www.nexmark.com/"...)
	b = appendString(r, b, 5, '_')
	b = append(b, '/')
	b = appendString(r, b, 5, '_')
	b = append(b, '/')
	b = appendString(r, b, 5, '_')
	b = append(b, "/item.htm?query=1"...)
	return string(b)
}

// appendString appends Flink's nextString(random, max, special): length 3
// + uniform(max-3); each character is special with probability 1/13
// (uniform(13) == 0), else 'a' + uniform(26); then, when special is a
// space, leading and trailing spaces are trimmed (Java's trim()).
func appendString(r *rng, b []byte, max int64, special byte) []byte {
	start := len(b)
	n := 3 + r.uniform(max-3)
	for ; n > 0; n-- {
		if r.uniform(13) == 0 {
			b = append(b, special)
		} else {
			b = append(b, byte('a'+r.uniform(26)))
		}
	}
	if special == ' ' {
		s := b[start:]
		lo, hi := 0, len(s)
		for lo < hi && s[lo] == ' ' {
			lo++
		}
		for hi > lo && s[hi-1] == ' ' {
			hi--
		}
		if lo > 0 {
			copy(s, s[lo:hi])
		}
		b = b[:start+hi-lo]
	}
	return b
}

// javaRound is Math.round(double) for the values used here.
func javaRound(x float64) int64 { return int64(math.Floor(x + 0.5)) }

// price is round(10^(U·6)·100) with U uniform in [0, 1) (log-uniform in
// [100, 100,000,000] cents).
func price(r *rng) int64 { return javaRound(pow10(r.float()*6) * 100) }

// log2of10 is log2(10).
const log2of10 = 3.321928094887362347870319429489390175864831393

// exp2Table[i] = 2^(i/256).
var exp2Table = func() (t [257]float64) {
	for i := range t {
		t[i] = math.Exp2(float64(i) / 256)
	}
	return t
}()

// pow10 is 10^x for x in [0, 6), within about 1e-15 relative error of
// math.Pow and several times faster: 2^(x·log2 10) from a 256-step table
// and a degree-4 polynomial for the remainder.
func pow10(x float64) float64 {
	y := x * log2of10
	n := math.Floor(y)
	f := (y - n) * 256
	i := int(f)
	z := (f - float64(i)) * (math.Ln2 / 256)
	p := 1 + z*(1+z*(0.5+z*(1.0/6+z*(1.0/24))))
	return exp2Table[i] * p * float64(uint64(1)<<uint(n))
}

// padRange draws the extra padding: "" when cur > avg; else with d = avg
// − cur and delta = round(0.2·d), a length d − delta + uniform(2·delta)
// (d when delta is 0), taken at offset uniform(PadLen − length + 1) of the
// padding string. The length is capped at PadLen.
func padRange(r *rng, cur, avg int64) (off, n int64) {
	if cur > avg {
		return 0, 0
	}
	d := avg - cur
	delta := javaRound(float64(d) * 0.2)
	n = d - delta
	if delta != 0 {
		n += r.uniform(2 * delta)
	}
	if n > PadLen {
		n = PadLen
	}
	off = r.uniform(PadLen - n + 1)
	return off, n
}

// model holds the derived constants of a configuration.
type model struct {
	cfg          Config
	total        int64   // sum of the proportions
	delayUs      float64 // inter-event delay in µs (one generator)
	auctionSpan  int64   // events until NumInFlightAuctions more auctions
	hotBidderOff int64   // FIRST_PERSON_ID added to the bidder (once or twice)
	pools        *pools
}

func newModel(cfg Config) *model {
	m := &model{cfg: cfg, pools: getPools(cfg.Seed)}
	m.total = cfg.PersonProportion + cfg.AuctionProportion + cfg.BidProportion
	m.delayUs = 1e6 / float64(cfg.FirstEventRate)
	if cfg.AuctionProportion > 0 {
		m.auctionSpan = NumInFlightAuctions * m.total / cfg.AuctionProportion
	}
	m.hotBidderOff = FirstPersonID
	if cfg.BidderOffset {
		m.hotBidderOff = 2 * FirstPersonID
	}
	return m
}

// eventID and eventNumber of the k-th event (k = 0, 1, …) of the single
// generator: firstEventId = firstEventNumber = 1, so en = 1 + k and eid =
// 1 + en.
func eventNumber(k int64) int64 { return 1 + k }
func eventID(k int64) int64     { return 2 + k }

// timestamp is baseTime + (long)(en · delayUs) / 1000, in milliseconds.
func (m *model) timestamp(en int64) int64 {
	return m.cfg.BaseTime + int64(float64(en)*m.delayUs)/1000
}

// kind is the event kind of an event id.
func (m *model) kind(eid int64) int32 {
	r := eid % m.total
	switch {
	case r < m.cfg.PersonProportion:
		return KindPerson
	case r < m.cfg.PersonProportion+m.cfg.AuctionProportion:
		return KindAuction
	}
	return KindBid
}

// lastPersonID is the base-0 id of the last person generated at or before
// eid.
func (m *model) lastPersonID(eid int64) int64 {
	epoch, off := eid/m.total, eid%m.total
	if off >= m.cfg.PersonProportion {
		off = m.cfg.PersonProportion - 1
	}
	return epoch*m.cfg.PersonProportion + off
}

// lastAuctionID is the base-0 id of the last auction generated at or
// before eid.
func (m *model) lastAuctionID(eid int64) int64 {
	pP, pA := m.cfg.PersonProportion, m.cfg.AuctionProportion
	epoch, off := eid/m.total, eid%m.total
	switch {
	case off < pP:
		epoch--
		off = pA - 1
	case off >= pP+pA:
		off = pA - 1
	default:
		off -= pP
	}
	return epoch*pA + off
}

// nextPersonID draws a base-0 id among the active people (up to
// PersonIDLead ids ahead of the last one).
func (m *model) nextPersonID(r *rng, eid int64) int64 {
	num := m.lastPersonID(eid) + 1
	active := min(num, NumActivePeople)
	return num - active + r.uniform(active+PersonIDLead)
}

// nextAuctionID draws a base-0 id among the in-flight auctions (up to
// AuctionIDLead ids ahead of the last one).
func (m *model) nextAuctionID(r *rng, eid int64) int64 {
	hi := m.lastAuctionID(eid)
	lo := max(hi-NumInFlightAuctions, 0)
	return lo + r.uniform(hi-lo+1+AuctionIDLead)
}
