package store

import (
	"encoding/binary"
	"hash/crc32"
	"strconv"
)

// Every stored value (records and meta) is framed:
//
//	byte 0     frame version (frameVersion)
//	bytes 1-4  CRC-32C (Castagnoli) of the key, then the payload; little-endian
//	bytes 5-   the payload, as given to Put
//
// The checksum covers the key so a value stored under another key is caught.
const (
	frameVersion = 1
	frameHeader  = 5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func frameSum(key, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, payload)
}

// appendFrame appends the framed payload to dst.
func appendFrame(dst, key, payload []byte) []byte {
	dst = append(dst, frameVersion, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(dst[len(dst)-4:], frameSum(key, payload))
	return append(dst, payload...)
}

// unframe checks a stored value and returns its payload (aliasing stored).
func unframe(world string, key, stored []byte) ([]byte, error) {
	if len(stored) < frameHeader {
		return nil, &CorruptError{World: world, Key: clone(key), Reason: "record of " + strconv.Itoa(len(stored)) + " bytes is shorter than its header"}
	}
	if stored[0] != frameVersion {
		return nil, &FormatError{Where: "world " + strconv.Quote(world) + " record " + strconv.Quote(string(key)), Found: "record format " + strconv.Itoa(int(stored[0])), Want: "record format " + strconv.Itoa(frameVersion)}
	}
	payload := stored[frameHeader:]
	if binary.LittleEndian.Uint32(stored[1:5]) != frameSum(key, payload) {
		return nil, &CorruptError{World: world, Key: clone(key), Reason: "checksum mismatch"}
	}
	return payload, nil
}

func clone(p []byte) []byte { return append([]byte(nil), p...) }
