package kafkaenv

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// Shared is the broker a test package's TestMain started with Main (nil
// when Kafka is not installed, or did not start).
var Shared *Cluster

// sharedErr says why Shared is nil.
var sharedErr error

// Main is a TestMain body: it starts one broker for the package's whole
// run when Kafka is installed, runs the tests and stops the broker, also
// when a test fails.
//
//	func TestMain(m *testing.M) { kafkaenv.Main(m) }
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := Libs(); err != nil {
		sharedErr = err
		return m.Run()
	}
	c, err := StartCluster(context.Background(), 1)
	if err != nil {
		sharedErr = err
		fmt.Fprintln(os.Stderr, err)
		return m.Run()
	}
	Shared = c
	defer func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "kafkaenv: stop:", err)
		}
	}()
	return m.Run()
}

// Require returns the shared broker. Without one the test fails when CI
// is "true" (CI must install Kafka) and is skipped, saying why, otherwise.
func Require(t testing.TB) *Cluster {
	t.Helper()
	if Shared != nil {
		return Shared
	}
	missing(t, sharedErr)
	return nil
}

// Start starts a cluster of n nodes of the test's own (fault tests stop
// and restart its nodes), stopped when the test ends. Without Kafka the
// test fails when CI is "true" and is skipped otherwise.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	if _, err := Libs(); err != nil {
		missing(t, err)
	}
	c, err := StartCluster(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func missing(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("Apache Kafka is needed and CI=true: %v", err)
	}
	t.Skipf("no Apache Kafka: %v", err)
}
