package kafkaenv

import "testing"

// TestClusterIDIsNoOption: kafka-storage takes an id starting with '-'
// for an option; 10,000 draws would give about 156 of them.
func TestClusterIDIsNoOption(t *testing.T) {
	for range 10000 {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		if id == "" || id[0] == '-' {
			t.Fatalf("cluster id %q", id)
		}
	}
}
