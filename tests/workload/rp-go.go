// rp-go.go — a Go workload (Go writes .debug_frame only, no .eh_frame): main -> outer -> inner
// burning about SECONDS (argument, default 1) of CPU time. The fixture of
// tests/test-utab-build.c and tests/record-dbgframe.sh; built by `make check` when a Go
// compiler is there (GO, default /usr/lib/go-1.19/bin/go).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func inner(seed uint64) uint64 {
	x := seed | 1
	for i := 0; i < 20000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func outer(seed uint64) uint64 {
	var buf [8]uint64
	sum := uint64(0)
	for i := range buf {
		buf[i] = inner(seed + uint64(i))
	}
	for _, v := range buf {
		sum += v
	}
	return sum
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil || v <= 0 {
			fmt.Fprintln(os.Stderr, "Usage: rp-go [SECONDS]")
			os.Exit(2)
		}
		secs = v
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	sum, rounds := uint64(0), uint64(0)
	for time.Now().Before(end) {
		sum += outer(sum + rounds)
		rounds++
	}
	fmt.Printf("rp-go: %d rounds, checksum %x\n", rounds, sum)
}
