package reportstoretest

import (
	"io"
)

// The CSV of a large report (WithLargeReport) is generated while it is sent, never held in
// memory: fixed-width rows of a synthetic panel, cycling through the 20 economies and the 11
// years, with a new synthetic indicator code (SYN.STREAM.000000, ...) every 220 rows.
const (
	largeHeader    = "economy,year,indicator,value,source\n"
	largeRowLen    = len("US,2015,SYN.STREAM.000000,000000000.00,synthetic\n")
	largeChunkSize = 64 << 10
	yearsPerRow    = lastYear - firstYear + 1
)

// largeLength returns the length of the CSV WithLargeReport serves for size: the header and
// the largest whole number of rows that fit in size bytes (at least the header).
func largeLength(size int64) int64 {
	rows := max(size-int64(len(largeHeader)), 0) / int64(largeRowLen)
	return int64(len(largeHeader)) + rows*int64(largeRowLen)
}

// writeLarge writes the CSV of length largeLength(size) to w, in chunks of 64 KiB.
func writeLarge(w io.Writer, size int64) error {
	rows := (largeLength(size) - int64(len(largeHeader))) / int64(largeRowLen)
	buf := make([]byte, 0, largeChunkSize)
	buf = append(buf, largeHeader...)
	row := []byte("US,2015,SYN.STREAM.000000,000000000.00,synthetic\n")
	for i := int64(0); i < rows; i++ {
		e := economies[(i/yearsPerRow)%int64(len(economies))]
		year := firstYear + i%yearsPerRow
		block := i / (yearsPerRow * int64(len(economies)))
		copy(row[0:2], e.code)
		putDigits(row[3:7], uint64(year))
		putDigits(row[19:25], uint64(block%1_000_000))
		cents := mix(uint64(i)) % 100_000_000_000
		putDigits(row[26:35], cents/100)
		putDigits(row[36:38], cents%100)
		if len(buf)+len(row) > cap(buf) {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, row...)
	}
	_, err := w.Write(buf)
	return err
}

// putDigits writes n in decimal into dst, zero-padded to its length.
func putDigits(dst []byte, n uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// mix is the splitmix64 finaliser: a cheap, deterministic scramble of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
