package flinkenv

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestClusterUp checks the running cluster: the gateway reports Flink's
// version, the JobManager one TaskManager with two slots, and every
// endpoint is bound to 127.0.0.1 only.
func TestClusterUp(t *testing.T) {
	c := Require(t)
	get := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if info := get(c.GatewayURL + "/v1/info"); !strings.Contains(info, `"`+Version+`"`) {
		t.Errorf("gateway /v1/info = %s, want version %s", info, Version)
	}
	if ov := get(c.RESTURL + "/overview"); !strings.Contains(ov, `"taskmanagers":1`) || !strings.Contains(ov, `"slots-total":2`) {
		t.Errorf("/overview = %s", ov)
	}
	conf, err := os.ReadFile(filepath.Join(c.ConfDir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--add-opens=java.base/java.lang=ALL-UNNAMED", "jobmanager.memory.process.size: 1024m", "taskmanager.memory.process.size: 1536m", "taskmanager.numberOfTaskSlots: 2"} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("config.yaml lacks %q", want)
		}
	}
}

func TestJavaOptsAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(p, []byte("# c\nenv:\n  java:\n    opts:\n      all: --add-opens=x\njobmanager:\n  bind-host: localhost\n"), 0o644)
	got, err := javaOptsAll(p)
	if err != nil || got != "--add-opens=x" {
		t.Fatalf("javaOptsAll = %q, %v", got, err)
	}
	os.WriteFile(p, []byte("jobmanager:\n  all: y\n"), 0o644)
	if _, err := javaOptsAll(p); err == nil {
		t.Fatal("want an error without env.java.opts.all")
	}
}
