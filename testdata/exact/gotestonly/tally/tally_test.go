package tally

import (
	"testing"

	"example.com/goprovider/shapes"
)

func TestCount(t *testing.T) {
	if Count(int(shapes.Square{Side: 2}.Area())) != 4 {
		t.Fatal("count")
	}
}
