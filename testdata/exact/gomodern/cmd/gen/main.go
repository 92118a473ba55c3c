// Command gen is the module's own tool: the `tool` directive of its go.mod names it.
package main

import "example.com/gomodern/names"

func main() {
	println(names.Greeting("gen"))
}
