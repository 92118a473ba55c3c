module example.com/gomodern

go 1.25

tool example.com/gomodern/cmd/gen
