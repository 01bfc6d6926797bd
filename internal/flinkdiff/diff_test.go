package flinkdiff

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tablerun/tablerun/internal/flinkenv"
	"github.com/tablerun/tablerun/internal/flinkgw"
)

var (
	verbose = flag.Bool("flinkdiff.v", false, "print every statement's comparison")
	full    = flag.Bool("flinkdiff.full", false, "run the full corpora (every .slt query, more generated queries)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	flinkenv.Main(m)
}

func repoRoot(t testing.TB) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func newRunner(t testing.TB) *Runner {
	c := flinkenv.Require(t)
	return &Runner{Gateway: flinkgw.New(c.GatewayURL), Root: repoRoot(t)}
}

// tally sums a corpus's outcomes and prints its differences.
type tally struct {
	corpus string
	counts map[Outcome]int
	diffs  []string
}

func (ty *tally) add(t *testing.T, rep *Report) {
	if ty.counts == nil {
		ty.counts = map[Outcome]int{}
	}
	for _, s := range rep.Statements {
		ty.counts[s.Outcome]++
		if *verbose || s.Outcome == Differ {
			msg := fmt.Sprintf("%s:%d [%s] %s\n  %s\n  --- tablerun\n%s\n  --- Flink\n%s", rep.Name, s.Line, s.Outcome, s.Detail, indent(s.SQL), indent(s.Ours), indent(s.Flink))
			if s.Outcome == Differ {
				ty.diffs = append(ty.diffs, msg)
			} else {
				t.Log(msg)
			}
		}
	}
}

func (ty *tally) report(t *testing.T) {
	compared := ty.counts[Equal] + ty.counts[Differ] + ty.counts[Known]
	t.Logf("corpus %s: %d compared, %d equal, %d known (docs/flink-differences.md), %d differ, %d skipped",
		ty.corpus, compared, ty.counts[Equal], ty.counts[Known], ty.counts[Differ], ty.counts[Skipped])
	for _, d := range ty.diffs {
		t.Error(d)
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
