module example.com/gocalls

go 1.22
