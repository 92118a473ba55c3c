module example.com/gostranger

go 1.22
