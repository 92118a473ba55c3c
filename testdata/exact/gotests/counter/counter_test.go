package counter

import "testing"

// An in-package test: it reads the unexported field.
func TestAdd(t *testing.T) {
	byName := map[string]*Counter{"a": New()}
	byName["a"].Add(1)
	if byName["a"].n != 1 {
		t.Fatal("Add did not add")
	}
}
