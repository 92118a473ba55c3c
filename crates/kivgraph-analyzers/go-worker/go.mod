module kivgraph.invalid/goworker

go 1.21
