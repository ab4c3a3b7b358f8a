package assets

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/tandem-go/tandem/assets/internal/sfx"
)

// TestSoundsAreGenerated: each committed WAV is what the generator makes
// (within one least significant bit per sample: floating point may round
// differently on another CPU), is a 44.1 kHz 16-bit mono PCM file, is
// audible and does not clip.
func TestSoundsAreGenerated(t *testing.T) {
	embedded := map[string][]byte{"hit": Hit, "dash": Dash, "goal": Goal, "join": Join}
	if len(embedded) != len(sfx.Effects) {
		t.Fatalf("%d effects generated, %d embedded", len(sfx.Effects), len(embedded))
	}
	for _, e := range sfx.Effects {
		got, want := embedded[e.Name], e.WAV()
		if len(got) != len(want) || !bytes.Equal(got[:44], want[:44]) {
			t.Fatalf("%s.wav: %d bytes, the generator makes %d (headers %x / %x); run go generate ./assets", e.Name, len(got), len(want), got[:min(44, len(got))], want[:44])
		}
		var peak, sum float64
		for i := 44; i < len(got); i += 2 {
			a := int16(binary.LittleEndian.Uint16(got[i:]))
			b := int16(binary.LittleEndian.Uint16(want[i:]))
			if d := int(a) - int(b); d < -1 || d > 1 {
				t.Fatalf("%s.wav: sample %d is %d, the generator makes %d; run go generate ./assets", e.Name, (i-44)/2, a, b)
			}
			v := float64(a) / 32768
			peak = max(peak, v, -v)
			sum += v * v
		}
		if f := binary.LittleEndian.Uint32(got[24:]); f != sfx.Rate || got[22] != 1 || got[34] != 16 {
			t.Fatalf("%s.wav: %d Hz, %d channels, %d bits; want %d Hz mono 16-bit", e.Name, f, got[22], got[34], sfx.Rate)
		}
		n := float64(len(got)-44) / 2
		secs := n / sfx.Rate
		t.Logf("%s: %.2f s, peak %.2f, rms %.3f", e.Name, secs, peak, math.Sqrt(sum/n))
		if peak < 0.2 || peak > 0.999 || secs > 1 {
			t.Errorf("%s: peak %.3f over %.2f s; want an audible effect under a second that does not clip", e.Name, peak, secs)
		}
	}
}

// TestLicencesBesideFiles: every embedded directory has its licence.
func TestLicencesBesideFiles(t *testing.T) {
	for _, dir := range []string{"fonts", "sounds"} {
		if b, err := os.ReadFile(dir + "/LICENSE"); err != nil || len(b) < 100 {
			t.Errorf("%s/LICENSE: %v (%d bytes)", dir, err, len(b))
		}
	}
	for name, b := range map[string][]byte{"GoRegular": GoRegular, "GoBold": GoBold, "GoMono": GoMono} {
		if len(b) < 1000 || !bytes.Equal(b[:4], []byte{0, 1, 0, 0}) {
			t.Errorf("%s is not a TrueType font (%d bytes)", name, len(b))
		}
	}
}
