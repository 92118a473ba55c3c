module example.com/goconsumer

go 1.22
