package flinkdiff

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablerun/tablerun/flinkgw"
	"github.com/tablerun/tablerun/internal/conformance"
	"github.com/tablerun/tablerun/internal/flinkenv"
	"github.com/tablerun/tablerun/internal/slt"
)

var (
	verbose = flag.Bool("flinkdiff.v", false, "print every statement's comparison")
	full    = flag.Bool("flinkdiff.full", false, "run the full corpora (every .slt query, more generated queries)")
	strict  = flag.Bool("flinkdiff.strict", false, "fail on differences in the corpora still being triaged (none at present)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("FLINKDIFF_GATEWAY") != "" {
		os.Exit(m.Run())
	}
	flinkenv.Main(m)
}

func repoRoot(t testing.TB) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// newRunner returns a runner on the package's cluster, or on the gateway
// at $FLINKDIFF_GATEWAY (one started by internal/flinkenv/flinkup, say).
func newRunner(t testing.TB) *Runner {
	if gw := os.Getenv("FLINKDIFF_GATEWAY"); gw != "" {
		return &Runner{Gateway: flinkgw.New(gw), Root: repoRoot(t)}
	}
	c := flinkenv.Require(t)
	return &Runner{Gateway: flinkgw.New(c.GatewayURL), Root: repoRoot(t)}
}

// tally sums a corpus's outcomes and prints its differences.
type tally struct {
	corpus string
	// triage: differences are logged, not failures, unless
	// -flinkdiff.strict (a corpus whose differences are not all triaged
	// yet, see docs/flink-differences.md)
	triage bool
	counts map[Outcome]int
	diffs  []string
	long   bool // log differences as they come
}

func (ty *tally) add(t *testing.T, rep *Report) {
	if ty.counts == nil {
		ty.counts = map[Outcome]int{}
	}
	for _, s := range rep.Statements {
		ty.counts[s.Outcome]++
		if *verbose || s.Outcome == Differ || s.Outcome == Unsupported {
			msg := fmt.Sprintf("%s:%d [%s] %s\n  %s\n  --- tablerun\n%s\n  --- Flink\n%s", rep.Name, s.Line, s.Outcome, s.Detail, indent(s.SQL), indent(s.Ours), indent(s.Flink))
			if s.Outcome == Differ {
				ty.diffs = append(ty.diffs, msg)
				if ty.long {
					t.Log("DIFFER " + msg) // at once: a long run may be stopped
				}
			} else {
				t.Log(msg)
			}
		}
	}
}

func (ty *tally) report(t *testing.T) {
	compared := ty.counts[Equal] + ty.counts[Differ] + ty.counts[Known] + ty.counts[Unsupported]
	t.Logf("corpus %s: %d compared, %d equal, %d known (docs/flink-differences.md), %d not supported yet by tablerun, %d differ, %d skipped",
		ty.corpus, compared, ty.counts[Equal], ty.counts[Known], ty.counts[Unsupported], ty.counts[Differ], ty.counts[Skipped])
	for _, d := range ty.diffs {
		if ty.triage && !*strict {
			t.Log("UNTRIAGED " + d)
		} else {
			t.Error(d)
		}
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// TestExamples compares every script of examples/.
func TestExamples(t *testing.T) {
	r := newRunner(t)
	files, _ := filepath.Glob(filepath.Join(r.Root, "examples", "*.sql"))
	sort.Strings(files)
	ty := &tally{corpus: "examples"}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.Run(context.Background(), "examples/"+filepath.Base(f), string(text), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ty.add(t, rep)
	}
	ty.report(t)
}

// TestConformanceQ compares the statements of Flink's own SQL-client and
// SQL-gateway scripts (../shared/conformance/flink-q), each file in one
// session of each engine. Records that need a JVM of their own (jars, Java
// UDF classes) or the CLI (HELP, QUIT) are left out.
func TestConformanceQ(t *testing.T) {
	r := newRunner(t)
	qdir := filepath.Join(r.Root, "..", "shared", "conformance", "flink-q")
	if _, err := os.Stat(qdir); err != nil {
		qdir = "/work/shared/conformance/flink-q"
	}
	files, _ := filepath.Glob(filepath.Join(qdir, "*", "*.q"))
	if len(files) == 0 {
		t.Fatalf("no .q files under %s", qdir)
	}
	sort.Strings(files)
	ty := &tally{corpus: "conformance .q"}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parse := conformance.Parse
		if filepath.Base(filepath.Dir(f)) == "sql-gateway" {
			parse = conformance.ParseGateway
		}
		recs, err := parse(conformance.Variables(string(text), "__TEST_DIR__"))
		if err != nil {
			t.Fatal(err)
		}
		var stmts []string
		var lines []int
		for _, rec := range recs {
			sql := strings.TrimSuffix(strings.TrimSpace(rec.SQL), ";")
			u := strings.ToUpper(strings.Join(strings.Fields(sql), " "))
			if conformance.SkipReason(rec, "") != "" || u == "HELP" || u == "QUIT" || u == "EXIT" ||
				strings.Contains(u, "UDF") || strings.Contains(u, "'CLASSPATH'") || strings.Contains(sql, "$VAR_") {
				continue
			}
			stmts, lines = append(stmts, sql), append(lines, rec.Line)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		rep, err := r.RunStatements(context.Background(), name, stmts, lines,
			Options{Dirs: []string{"streaming", "streaming2", "streaming3", "batch", "batch2"}})
		if err != nil {
			t.Fatal(err)
		}
		ty.add(t, rep)
	}
	ty.report(t)
}

// TestSLT compares the records of testdata/*.slt, each file in one session
// of each engine: every statement, and a seeded sample of the queries (a
// quarter, rotating daily; FLINKDIFF_SEED=n picks another,
// -flinkdiff.full takes them all). A difference not explained in
// docs/flink-differences.md (KnownDifferences) fails the test.
func TestSLT(t *testing.T) {
	r := newRunner(t)
	seed := time.Now().UTC().YearDay()
	if s := os.Getenv("FLINKDIFF_SEED"); s != "" {
		seed, _ = strconv.Atoi(s)
	}
	t.Logf("slt sample seed %d (FLINKDIFF_SEED=%d reproduces it)", seed, seed)
	files, _ := filepath.Glob(filepath.Join(r.Root, "testdata", "*.slt"))
	sort.Strings(files)
	ty := &tally{corpus: "testdata .slt"}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := slt.Parse(string(text))
		if err != nil {
			t.Fatal(err)
		}
		var stmts []string
		var lines []int
		for _, rec := range recs {
			if rec.Kind == slt.Halt {
				break
			}
			if rec.Skip != "" {
				continue
			}
			stmts, lines = append(stmts, rec.SQL), append(lines, rec.Line)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(len(f))))
		sample := func(int) bool { return *full || rng.IntN(4) == 0 }
		rep, err := r.RunStatements(context.Background(), "testdata/"+filepath.Base(f), stmts, lines, Options{Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		ty.add(t, rep)
	}
	ty.report(t)
}
