module example.com/gofuture

go 1.99
