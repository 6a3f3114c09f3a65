// Package freeport picks ports for servers that tests and benchmarks start
// as child processes, below the kernel's ephemeral range. A port found by
// listening on port 0 comes from that range, and is free only until the
// next process that listens on port 0 or connects out takes it: a child's
// embedded etcd once got the very port chosen for its API server.
package freeport

import (
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is where the search starts; the kernel's ephemeral range (from
// 32768 by default on Linux) is where it stops.
const lowest = 20000

// Get returns a TCP port that nothing listens on, on any interface, now,
// and that the kernel does not hand out to port-0 listeners or outgoing
// connections.
func Get() (int, error) {
	top := ephemeralStart()
	if top <= lowest {
		return 0, errors.New("freeport: the ephemeral port range starts below 20000")
	}
	for range 200 {
		port := lowest + rand.IntN(top-lowest)
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		_ = l.Close()
		return port, nil
	}
	return 0, errors.New("freeport: no free port below the ephemeral range")
}

// ephemeralStart is the first port of the kernel's ephemeral range.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return n
}
