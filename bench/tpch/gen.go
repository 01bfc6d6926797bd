// Package tpch holds tablerun's TPC-H kit: a data generator that follows
// the dbgen rules of the TPC-H specification (clause 4.2.3: cardinalities,
// key schemes, value ranges, derived columns and the text pools that the
// 22 queries filter on), the table DDL for the filesystem connector, and
// the 22 queries in Flink SQL (queries/qN.sql, the standard text with the
// specification's validation substitution parameters).
//
// The generator is written from the specification, not ported from dbgen:
// its random streams differ from dbgen's, so the rows are not dbgen's
// rows, but every column obeys the same rule (so the queries select
// comparable fractions of the data). It is deterministic: the same scale
// factor gives the same files on every machine.
package tpch

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Tables are the eight TPC-H tables in generation order.
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

var (
	regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	nations = []struct {
		name   string
		region int
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
		{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
		{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
		{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
		{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	colors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush
		brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan
		dark deep dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey
		honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium
		metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru
		pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate
		smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow`)
	typeS1     = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2     = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3     = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	contS1     = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	contS2     = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments   = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructs  = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes      = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	// words is the comment vocabulary (the spec's text grammar draws on
	// nouns, verbs, adjectives and adverbs like these; queries 13 and 16
	// look for "special … requests" and "Customer … Complaints").
	words = strings.Fields(`furiously carefully quickly slyly blithely express regular final ironic
		pending bold even special unusual silent daring deposits requests accounts packages theodolites
		instructions foxes ideas dependencies platelets pinto beans asymptotes courts dolphins
		sleep wake nag haggle cajole boost detect integrate use are among above across after
		along against about beside`)
)

// Dates of the specification: STARTDATE, CURRENTDATE and ENDDATE.
var (
	startDate   = day(1992, 1, 1)
	currentDate = day(1995, 6, 17)
	endDate     = day(1998, 12, 31)
)

func day(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// Sizes are the row counts at a scale factor (orders and lineitem: the
// orders; lineitem has 1 to 7 lines per order).
type Sizes struct {
	Supplier, Part, Customer, Orders int
}

// SizesOf returns the cardinalities of scale factor sf.
func SizesOf(sf float64) Sizes {
	n := func(base float64) int { return max(1, int(base*sf)) }
	return Sizes{Supplier: n(10_000), Part: n(200_000), Customer: n(150_000), Orders: n(1_500_000)}
}

// Generate writes the eight tables of scale factor sf as CSV files
// (comma-separated, no header, no quoting: no value holds a comma) named
// <table>.csv into dir. sf must be positive.
func Generate(dir string, sf float64) error {
	if !(sf > 0) {
		return fmt.Errorf("tpch: scale factor must be positive, got %v", sf)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := &generator{sz: SizesOf(sf), clerks: max(1, int(sf*1000))}
	for _, t := range Tables {
		if err := g.write(filepath.Join(dir, t+".csv"), t); err != nil {
			return fmt.Errorf("tpch: %s: %w", t, err)
		}
	}
	return nil
}

type generator struct {
	sz     Sizes
	clerks int
	w      *bufio.Writer
	line   []byte
	r      *rand.Rand
}

func (g *generator) write(path, table string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	g.w = bufio.NewWriterSize(f, 1<<20)
	seed := uint64(0)
	for _, c := range table {
		seed = seed*31 + uint64(c)
	}
	g.r = rand.New(rand.NewPCG(seed, 0x7c9))
	switch table {
	case "region":
		for i, n := range regions {
			g.row(strconv.Itoa(i), n, g.comment(31, 115))
		}
	case "nation":
		for i, n := range nations {
			g.row(strconv.Itoa(i), n.name, strconv.Itoa(n.region), g.comment(31, 114))
		}
	case "supplier":
		g.suppliers()
	case "customer":
		g.customers()
	case "part":
		g.parts()
	case "partsupp":
		g.partsupps()
	case "orders":
		err = g.orders(false)
	case "lineitem":
		err = g.orders(true)
	}
	if err == nil {
		err = g.w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (g *generator) row(fields ...string) {
	g.line = g.line[:0]
	for i, f := range fields {
		if i > 0 {
			g.line = append(g.line, ',')
		}
		g.line = append(g.line, f...)
	}
	g.line = append(g.line, '\n')
	_, _ = g.w.Write(g.line)
}

func (g *generator) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// comment is a text of random words whose length is between lo and hi.
func (g *generator) comment(lo, hi int) string {
	n := g.between(lo, hi)
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.r.IntN(len(words))])
	}
	s := b.String()
	if len(s) > n {
		s = strings.TrimRight(s[:n], " ")
	}
	return s
}

// address is a random string of 10 to 40 letters and digits.
func (g *generator) address() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, g.between(10, 40))
	for i := range b {
		b[i] = alnum[g.r.IntN(len(alnum))]
	}
	return string(b)
}

func (g *generator) phone(nation int) string {
	return fmt.Sprintf("%d-%03d-%03d-%04d", nation+10, g.between(100, 999), g.between(100, 999), g.between(1000, 9999))
}

// money formats cents as a decimal with two places.
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

func date(d int) string { return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02") }

func (g *generator) suppliers() {
	s := g.sz.Supplier
	for k := 1; k <= s; k++ {
		nation := g.r.IntN(25)
		c := g.comment(25, 100)
		// Clause 4.2.3: 5 per 10,000 suppliers complain, 5 recommend.
		switch g.r.IntN(2000) {
		case 0:
			c = "Customer " + g.comment(5, 20) + " Complaints " + c
		case 1:
			c = "Customer " + g.comment(5, 20) + " Recommends " + c
		}
		g.row(strconv.Itoa(k), fmt.Sprintf("Supplier#%09d", k), g.address(), strconv.Itoa(nation),
			g.phone(nation), money(int64(g.between(-99999, 999999))), c)
	}
}

func (g *generator) customers() {
	for k := 1; k <= g.sz.Customer; k++ {
		nation := g.r.IntN(25)
		g.row(strconv.Itoa(k), fmt.Sprintf("Customer#%09d", k), g.address(), strconv.Itoa(nation),
			g.phone(nation), money(int64(g.between(-99999, 999999))), segments[g.r.IntN(5)], g.comment(29, 116))
	}
}

// retailPrice is P_RETAILPRICE of a part in cents (clause 4.2.3).
func retailPrice(partkey int) int64 {
	return int64(90000 + (partkey/10)%20001 + 100*(partkey%1000))
}

func (g *generator) parts() {
	for k := 1; k <= g.sz.Part; k++ {
		perm := g.r.Perm(len(colors))
		name := strings.Join([]string{colors[perm[0]], colors[perm[1]], colors[perm[2]], colors[perm[3]], colors[perm[4]]}, " ")
		m := g.between(1, 5)
		typ := typeS1[g.r.IntN(6)] + " " + typeS2[g.r.IntN(5)] + " " + typeS3[g.r.IntN(5)]
		cont := contS1[g.r.IntN(5)] + " " + contS2[g.r.IntN(8)]
		g.row(strconv.Itoa(k), name, fmt.Sprintf("Manufacturer#%d", m), fmt.Sprintf("Brand#%d%d", m, g.between(1, 5)),
			typ, strconv.Itoa(g.between(1, 50)), cont, money(retailPrice(k)), g.comment(5, 22))
	}
}

// partSupplier is the i-th (0..3) supplier of a part (clause 4.2.3).
func (g *generator) partSupplier(partkey, i int) int {
	s := g.sz.Supplier
	return (partkey+i*(s/4+(partkey-1)/s))%s + 1
}

func (g *generator) partsupps() {
	for k := 1; k <= g.sz.Part; k++ {
		for i := 0; i < 4; i++ {
			g.row(strconv.Itoa(k), strconv.Itoa(g.partSupplier(k, i)), strconv.Itoa(g.between(1, 9999)),
				money(int64(g.between(100, 100000))), g.comment(49, 198))
		}
	}
}

// orders writes the orders (lines false) or their line items (lines
// true): both walk the same random stream, so each order's total price
// and status agree with its lines.
func (g *generator) orders(lines bool) error {
	g.r = rand.New(rand.NewPCG(0x0bde5, 0x7c9)) // one stream for both files
	type line struct {
		part, supp, qty, disc, tax int
		price                      int64
		ship, commit, receipt      int
		flag, status               byte
	}
	var ls []line
	for i := 1; i <= g.sz.Orders; i++ {
		key := ((i-1)/8)*32 + (i-1)%8 + 1 // sparse keys: 8 of every 32
		cust := 0
		for cust == 0 || cust%3 == 0 { // a third of the customers order nothing
			cust = g.between(1, g.sz.Customer)
			if g.sz.Customer < 3 {
				break
			}
		}
		odate := g.between(startDate, endDate-151)
		prio := priorities[g.r.IntN(5)]
		clerk := fmt.Sprintf("Clerk#%09d", g.between(1, g.clerks))
		ocomment := g.comment(19, 78)
		ls = ls[:0]
		var total int64 // in 1/1,000,000 of a cent-less unit: cents * 100 * 100
		allF, allO := true, true
		for n := g.between(1, 7); n > 0; n-- {
			var l line
			l.part = g.between(1, g.sz.Part)
			l.supp = g.partSupplier(l.part, g.r.IntN(4))
			l.qty = g.between(1, 50)
			l.disc = g.between(0, 10)
			l.tax = g.between(0, 8)
			l.price = int64(l.qty) * retailPrice(l.part)
			l.ship = odate + g.between(1, 121)
			l.commit = odate + g.between(30, 90)
			l.receipt = l.ship + g.between(1, 30)
			l.flag = 'N'
			if l.receipt <= currentDate {
				l.flag = "RA"[g.r.IntN(2)]
			}
			l.status = 'O'
			if l.ship <= currentDate {
				l.status = 'F'
			}
			allF = allF && l.status == 'F'
			allO = allO && l.status == 'O'
			total += l.price * int64(100+l.tax) * int64(100-l.disc)
			ls = append(ls, l)
		}
		status := "P"
		switch {
		case allF:
			status = "F"
		case allO:
			status = "O"
		}
		if !lines {
			// O_TOTALPRICE = sum(L_EXTENDEDPRICE*(1+L_TAX)*(1-L_DISCOUNT)),
			// rounded to cents.
			g.row(strconv.Itoa(key), strconv.Itoa(cust), status, money((total+5000)/10000), date(odate),
				prio, clerk, "0", ocomment)
			for range ls {
				g.skipLine()
			}
			continue
		}
		for n, l := range ls {
			g.row(strconv.Itoa(key), strconv.Itoa(l.part), strconv.Itoa(l.supp), strconv.Itoa(n+1),
				strconv.Itoa(l.qty), money(l.price), money(int64(l.disc)), money(int64(l.tax)),
				string(l.flag), string(l.status), date(l.ship), date(l.commit), date(l.receipt),
				instructs[g.r.IntN(4)], modes[g.r.IntN(7)], g.comment(10, 43))
		}
	}
	return nil
}

// skipLine draws what a line item's text columns draw, so that the orders
// file leaves the stream where the lineitem file does.
func (g *generator) skipLine() {
	g.r.IntN(4)
	g.r.IntN(7)
	g.comment(10, 43)
}
