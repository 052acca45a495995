module example.com/mypools

go 1.26
