module kivgraph.invalid/crossrepo-go-truth

go 1.27
