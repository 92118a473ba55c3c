package counter_test

import (
	"testing"

	"example.com/gotests/counter"
)

// An external test imports the package like any client.
func TestExternal(t *testing.T) {
	all := []*counter.Counter{counter.New()}
	all[0].Add(3)
}
