package store

import "example.com/goprovider/shapes"

// Named embeds a square: its methods are promoted.
type Named struct {
	shapes.Square
	Name string
}

// Measurer has a single implementation in the module.
type Measurer interface {
	Measure() float64
}

// Ruler is the only Measurer.
type Ruler struct{}

// Measure implements Measurer.
func (Ruler) Measure() float64 { return 1 }

// Open returns a named square and measures it through its only Measurer.
func Open(m Measurer) Named {
	n := Named{Square: shapes.Square{Side: m.Measure()}, Name: "unit"}
	n.Scale(2)
	return n
}
