package replicate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// describeState reads a State message as PROTOCOL.md §9.3 lays it out and
// returns one line per field: the bits it takes (from the first bit after
// the frame), what it is and its value. It is the documentation's reading of
// the format, independent of the client's decoder.
func describeState(t *testing.T, reg *Registry, payload []byte) []string {
	t.Helper()
	var lines []string
	br := wire.NewReader(payload)
	frame := br.Uvarint()
	lines = append(lines, fmt.Sprintf("frame: %d (uvarint, %d bytes)", frame, br.Offset()))
	rest := br.Rest()
	r := wire.NewBitReader(rest)
	at := func() int { return len(rest)*8 - r.BitsLeft() }
	field := func(from int, what string, v any) {
		lines = append(lines, strings.TrimSpace(fmt.Sprintf("%d-%d %s: %v", from, at()-1, what, v)))
	}
	from := at()
	n := r.ReadExpGolomb(0)
	field(from, "items (EG0)", n)
	streams := 2 + 2*reg.fields
	var book codeBook
	book.n = streams
	name := func(s int) string {
		switch {
		case s == streamID:
			return "id gaps"
		case s == streamAge:
			return "ages"
		case s < streamField+reg.fields:
			return fmt.Sprintf("residuals of field %d", s-streamField)
		default:
			return fmt.Sprintf("absolute values of field %d", s-streamField-reg.fields)
		}
	}
	unused, unusedFrom := -1, 0
	flush := func(end int) {
		if unused < 0 {
			return
		}
		what := fmt.Sprintf("stream %d", unused)
		if end-1 > unused {
			what = fmt.Sprintf("streams %d-%d", unused, end-1)
		}
		lines = append(lines, fmt.Sprintf("%d-%d %s: not used", unusedFrom, unusedFrom+end-unused-1, what))
		unused = -1
	}
	for s := range streams {
		from := at()
		if !r.ReadBool() {
			if unused < 0 {
				unused, unusedFrom = s, from
			}
			continue
		}
		flush(s)
		book.codes[s] = code{zero: r.ReadBool(), k: uint8(r.ReadBits(5))}
		c := book.codes[s]
		field(from, "code of stream "+fmt.Sprint(s)+", "+name(s), fmt.Sprintf("used, zero flag %v, order %d", c.zero, c.k))
	}
	flush(streams)
	ncomp := uint(len(reg.comps))
	from = at()
	common := r.ReadBits(ncomp)
	field(from, "common mask", fmt.Sprintf("%0*b", ncomp, common))
	from = at()
	commonBase := "newest image"
	if !r.ReadBool() {
		field(from, "common base", "with an age")
		from = at()
		age := book.codes[streamAge].get(&r)
		field(from, "  age", age)
		commonBase = fmt.Sprintf("the image of %d frames back", age)
	} else {
		field(from, "common base", commonBase)
	}
	fields := func(mask uint64, absolute bool) {
		for _, c := range reg.order {
			if mask&(1<<c) == 0 {
				continue
			}
			for i := range reg.comps[c].fields {
				s := streamField + reg.offset[c] + i
				kind := "residual"
				if absolute || reg.delta&(1<<c) == 0 {
					s += reg.fields
					kind = "absolute"
				}
				from := at()
				v := wire.UnZigZag(book.codes[s].get(&r))
				field(from, fmt.Sprintf("  %s %s.%d", kind, reg.comps[c].name, i), v)
			}
		}
	}
	var id uint64
	for range n {
		from := at()
		id += book.codes[streamID].get(&r) + 1
		field(from, "id gap", fmt.Sprintf("id %d", id))
		from = at()
		if r.ReadBool() {
			field(from, "  head: common", "update, common base ("+commonBase+"), common mask")
			fields(common, false)
			continue
		}
		update := func(from int, label string) {
			newest := r.ReadBool()
			var age uint64
			if newest {
				field(from, label, "newest image")
			} else {
				field(from, label, "with an age")
				from = at()
				age = book.codes[streamAge].get(&r)
				field(from, "  age", age)
			}
			from = at()
			mask := r.ReadBits(ncomp)
			field(from, "  mask", fmt.Sprintf("%0*b", ncomp, mask))
			fields(mask, !newest && age == 0)
		}
		switch {
		case !r.ReadBool():
			update(from, "  head: update")
		case !r.ReadBool():
			field(from, "  head: spawn", "owner, mask and snap follow")
			from = at()
			owner := r.ReadExpGolomb(0)
			field(from, "  owner (EG0)", owner)
			from = at()
			mask := r.ReadBits(ncomp)
			field(from, "  mask", fmt.Sprintf("%0*b", ncomp, mask))
			from = at()
			if r.ReadBool() {
				field(from, "  snap", "a pose of a teleport or of the making; its age follows")
				from = at()
				field(from, "  snap age", r.ReadBits(snapAgeBits))
			} else {
				field(from, "  snap", "none")
			}
			fields(mask, true)
		case !r.ReadBool():
			field(from, "  head: removal", "its age follows")
			from = at()
			field(from, "  removal age (EG0)", r.ReadExpGolomb(0))
		default:
			field(from, "  head: snap", "a teleport's pose; its age follows")
			from = at()
			field(from, "  snap age", r.ReadBits(snapAgeBits))
			update(at(), "  base")
		}
	}
	from = at()
	if err := r.Finish(); err != nil {
		t.Fatalf("describe: %v", err)
	}
	if at() > from {
		field(from, "padding", "zero")
	}
	return lines
}
