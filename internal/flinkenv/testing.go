package flinkenv

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// Shared is the cluster a test package's TestMain started with Main (nil
// when Flink is not installed, or did not start).
var Shared *Cluster

// sharedErr says why Shared is nil.
var sharedErr error

// Main is a TestMain body: it starts one cluster for the package's whole
// run when Flink is installed, runs the tests and stops the cluster, also
// when a test panics or fails.
//
//	func TestMain(m *testing.M) { flinkenv.Main(m) }
func Main(m *testing.M) {
	os.Exit(run(m))
}

// Run is Main without the exit: it returns the tests' exit code, so that
// a TestMain can clean up after the cluster stopped.
func Run(m *testing.M) int { return run(m) }

func run(m *testing.M) int {
	if _, err := Home(); err != nil {
		sharedErr = err
		return m.Run()
	}
	c, err := Start(context.Background(), Options{})
	if err != nil {
		sharedErr = err
		fmt.Fprintln(os.Stderr, err)
		return m.Run()
	}
	Shared = c
	defer func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "flinkenv: stop:", err)
		}
	}()
	return m.Run()
}

// Require returns the shared cluster. Without one the test fails when CI
// is "true" (CI must install and start Flink) and is skipped, saying why,
// otherwise.
func Require(t testing.TB) *Cluster {
	t.Helper()
	if Shared != nil {
		return Shared
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("Apache Flink is needed and CI=true: %v", sharedErr)
	}
	t.Skipf("no Apache Flink: %v", sharedErr)
	return nil
}
