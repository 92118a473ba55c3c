package report

import (
	"fmt"

	"example.com/goprovider/shapes"
	"example.com/goprovider/store"
)

// Report measures a circle and a stored square.
func Report() string {
	c := &shapes.Circle{Radius: 1}
	c.Scale(2)
	named := store.Open(store.Ruler{})
	total := shapes.Total([]shapes.Shape{*c, named.Square})
	return fmt.Sprintf("%s %.1f", named.Name, total)
}
