module example.com/aware

go 1.25
