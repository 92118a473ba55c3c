// Package shapes declares shapes and what can be measured of them.
package shapes

// Shape is something with an area.
type Shape interface {
	Area() float64
}

// Square has one implementation of Area.
type Square struct {
	Side float64
}

// Area of a square.
func (s Square) Area() float64 { return s.Side * s.Side }

// Scale is a homonym of Circle.Scale on another receiver.
func (s *Square) Scale(by float64) { s.Side *= by }

// Circle implements Shape too.
type Circle struct {
	Radius float64
}

// Area of a circle.
func (c Circle) Area() float64 { return 3 * c.Radius * c.Radius }

// Scale is a homonym of Square.Scale.
func (c *Circle) Scale(by float64) { c.Radius *= by }

// Total sums the areas through the interface.
func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
