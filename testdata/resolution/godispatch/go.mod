module example.com/godispatch

go 1.22
