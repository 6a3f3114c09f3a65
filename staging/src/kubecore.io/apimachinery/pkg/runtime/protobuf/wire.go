package protobuf

import (
	"errors"
	"fmt"
	"math/bits"
)

// wireType is the low three bits of a field key.
type wireType uint8

// The proto2 wire types.
const (
	wireVarint     wireType = 0
	wireFixed64    wireType = 1
	wireBytes      wireType = 2
	wireStartGroup wireType = 3
	wireEndGroup   wireType = 4
	wireFixed32    wireType = 5
)

// maxFieldNumber is the largest field number proto allows.
const maxFieldNumber = 1<<29 - 1

var (
	errTruncated = errors.New("unexpected end of data")
	errOverflow  = errors.New("varint overflows 64 bits")
)

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func varintSize(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}

func appendKey(b []byte, num int, wt wireType) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(wt))
}

func appendFixed32(b []byte, x uint32) []byte {
	return append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
}

func appendFixed64(b []byte, x uint64) []byte {
	return append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24),
		byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}

func appendBytes(b []byte, s []byte) []byte {
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendString(b []byte, s string) []byte {
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// beginMessage reserves one byte for the length of a nested message and
// returns where its content starts; endMessage writes the length there,
// moving the content when the length needs more than one byte.
func beginMessage(b []byte) ([]byte, int) {
	return append(b, 0), len(b) + 1
}

func endMessage(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	extra := varintSize(uint64(n)) - 1
	b = append(b, make([]byte, extra)...)
	copy(b[start+extra:], b[start:start+n])
	appendVarint(b[:start-1], uint64(n))
	return b
}

// consumeVarint reads a varint from the start of b and returns it with the
// number of bytes it took.
func consumeVarint(b []byte) (uint64, int, error) {
	var x uint64
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, 0, errOverflow
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errOverflow
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1, nil
		}
	}
	return 0, 0, errTruncated
}

// consumeKey reads a field key.
func consumeKey(b []byte) (int, wireType, int, error) {
	x, n, err := consumeVarint(b)
	if err != nil {
		return 0, 0, 0, err
	}
	num := x >> 3
	if num == 0 || num > maxFieldNumber {
		return 0, 0, 0, fmt.Errorf("invalid field number %d", num)
	}
	return int(num), wireType(x & 7), n, nil
}

// consumeBytes reads a length-delimited value and returns its content.
func consumeBytes(b []byte) ([]byte, int, error) {
	l, n, err := consumeVarint(b)
	if err != nil {
		return nil, 0, err
	}
	if l > uint64(len(b)-n) {
		return nil, 0, errTruncated
	}
	return b[n : n+int(l)], n + int(l), nil
}

func consumeFixed32(b []byte) (uint32, int, error) {
	if len(b) < 4 {
		return 0, 0, errTruncated
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, 4, nil
}

func consumeFixed64(b []byte) (uint64, int, error) {
	if len(b) < 8 {
		return 0, 0, errTruncated
	}
	lo, _, _ := consumeFixed32(b)
	hi, _, _ := consumeFixed32(b[4:])
	return uint64(lo) | uint64(hi)<<32, 8, nil
}

// value is one field's payload: x for varint and fixed wire types, data
// for length-delimited ones.
type value struct {
	wt   wireType
	x    uint64
	data []byte
}

// consumeValue reads the payload of a field of wire type wt. Groups, which
// no Kubernetes message uses, are skipped whole and returned empty.
func consumeValue(num int, wt wireType, b []byte) (value, int, error) {
	v := value{wt: wt}
	var n int
	var err error
	switch wt {
	case wireVarint:
		v.x, n, err = consumeVarint(b)
	case wireFixed64:
		v.x, n, err = consumeFixed64(b)
	case wireFixed32:
		var x uint32
		x, n, err = consumeFixed32(b)
		v.x = uint64(x)
	case wireBytes:
		v.data, n, err = consumeBytes(b)
	case wireStartGroup:
		n, err = skipGroup(num, b)
	default:
		err = fmt.Errorf("invalid wire type %d", wt)
	}
	return v, n, err
}

// skipGroup skips the fields of a group up to and including its end key.
func skipGroup(num int, b []byte) (int, error) {
	open := []int{num}
	i := 0
	for len(open) > 0 {
		fnum, wt, n, err := consumeKey(b[i:])
		if err != nil {
			return 0, err
		}
		i += n
		switch wt {
		case wireStartGroup:
			open = append(open, fnum)
		case wireEndGroup:
			if fnum != open[len(open)-1] {
				return 0, fmt.Errorf("group %d ended by field %d", open[len(open)-1], fnum)
			}
			open = open[:len(open)-1]
		default:
			_, n, err := consumeValue(fnum, wt, b[i:])
			if err != nil {
				return 0, err
			}
			i += n
		}
	}
	return i, nil
}
