package store

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzUnframe: any stored value under any key is a payload, a *CorruptError
// or a *FormatError, never a panic; a payload is what framing it again
// gives back, byte for byte.
func FuzzUnframe(f *testing.F) {
	f.Add([]byte("k"), appendFrame(nil, []byte("k"), []byte("payload")))
	f.Add([]byte("k"), []byte{frameVersion, 0, 0, 0})
	f.Add([]byte{}, []byte{2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, key, stored []byte) {
		p, err := unframe("w", key, stored)
		var ce *CorruptError
		var fe *FormatError
		switch {
		case err == nil:
			if again := appendFrame(nil, key, p); !bytes.Equal(again, stored) {
				t.Fatalf("% x under % x unframes to % x, which frames as % x", stored, key, p, again)
			}
		case !errors.As(err, &ce) && !errors.As(err, &fe):
			t.Fatalf("% x: %v is neither corrupt nor of another format", stored, err)
		}
	})
}

// FuzzLease: any lease payload decodes to a lease that encodes back to it,
// or is a *CorruptError.
func FuzzLease(f *testing.F) {
	f.Add(encodeLease(Lease{Epoch: 3, Taken: time.Unix(1_800_000_000, 5), Holder: "host-a"}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, p []byte) {
		l, err := decodeLease("w", p)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("% x: %v is not corrupt", p, err)
			}
			return
		}
		if again := encodeLease(l); !bytes.Equal(again, p) {
			t.Fatalf("% x decodes to %+v, which encodes as % x", p, l, again)
		}
	})
}
