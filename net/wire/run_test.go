package wire

import (
	"errors"
	"testing"
)

// A Welcome or Resumed without its world's run, or without the first
// network id the run gives, is malformed: a client could not tell the run
// of the world it holds from another.
func TestAnAnswerNamesItsRunAndItsFreshIDs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		run   uint64
		fresh uint32
		err   error
	}{{"both", 7, 1, nil}, {"no run", 0, 1, ErrInvalid}, {"no fresh id", 7, 0, ErrInvalid}} {
		w := goldenWelcome()
		w.Run, w.FreshIDs = tc.run, tc.fresh
		var gw Welcome
		if err := gw.Decode(w.Encode(nil)); !errors.Is(err, tc.err) || err == nil && (gw.Run != tc.run || gw.FreshIDs != tc.fresh) {
			t.Errorf("a Welcome with %s: %v, %+v; want %v", tc.name, err, gw, tc.err)
		}
		r := goldenResumed()
		r.Run, r.FreshIDs = tc.run, tc.fresh
		var gr Resumed
		if err := gr.Decode(r.Encode(nil)); !errors.Is(err, tc.err) || err == nil && (gr.Run != tc.run || gr.FreshIDs != tc.fresh) {
			t.Errorf("a Resumed with %s: %v, %+v; want %v", tc.name, err, gr, tc.err)
		}
	}
}
