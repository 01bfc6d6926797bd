package catalog

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConcurrentManager runs DDL, USE and lookups from many goroutines on
// one Manager with an in-memory and a file catalog (run with -race).
func TestConcurrentManager(t *testing.T) {
	m := NewManager("default_catalog", "default_database")
	fc, err := OpenFile("fc", t.TempDir(), "default")
	require.NoError(t, err)
	require.NoError(t, m.RegisterCatalog("fc", fc))
	c, _ := m.Catalog("default_catalog")
	require.NoError(t, c.CreateDatabase("other", &Database{}, false))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			cat := []string{"default_catalog", "fc"}[g%2]
			db := map[string]string{"default_catalog": "default_database", "fc": "default"}[cat]
			for i := 0; i < 25; i++ {
				id := ObjectIdentifier{cat, db, fmt.Sprintf("t_%d_%d", g, i)}
				steps := []func() error{
					func() error { return m.CreateObject(id, table("a"), false, false) },
					func() error { return m.CreateObject(id, &View{OriginalQuery: "SELECT 1"}, true, false) },
					func() error { _, _, err := m.Lookup(id); return err },
					func() error { _, err := m.ListObjects(cat, db, false, true); return err },
					func() error { return m.AlterObject(id, table("a", "b")) },
					func() error { return m.RenameObject(id, id.Object+"_r") },
					func() error { return m.DropObject(id, true, true, false) },
					func() error { return m.DropObject(ObjectIdentifier{cat, db, id.Object + "_r"}, false, false, false) },
					func() error {
						if g%2 == 0 {
							return m.UseDatabase("other")
						}
						return m.UseCatalogDatabase("default_catalog", "default_database")
					},
				}
				for _, step := range steps {
					if err := step(); err != nil {
						errs <- err
						return
					}
				}
				_, _ = m.Current()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, cat := range []string{"default_catalog", "fc"} {
		db := map[string]string{"default_catalog": "default_database", "fc": "default"}[cat]
		names, err := m.ListObjects(cat, db, false, true)
		require.NoError(t, err)
		require.Empty(t, names)
	}
	require.NoError(t, m.Close())
}
