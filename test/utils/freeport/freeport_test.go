package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestGetIsBelowTheEphemeralRangeAndFree(t *testing.T) {
	top := ephemeralStart()
	for range 20 {
		p, err := Get()
		if err != nil {
			t.Fatal(err)
		}
		if p < lowest || p >= top {
			t.Fatalf("port %d outside [%d, %d)", p, lowest, top)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		_ = l.Close()
	}
}
