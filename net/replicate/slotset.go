package replicate

// slotSet is a set of entity slots, a bit each, grown to the largest slot
// set: a scratch mark of a pass over slots, emptied by the pass that filled
// it (unset), so it is never scanned.
type slotSet []uint64

func (s slotSet) has(slot int32) bool {
	i := int(slot) >> 6
	return i < len(s) && s[i]&(1<<(uint(slot)&63)) != 0
}

func (s *slotSet) set(slot int32) {
	i := int(slot) >> 6
	if i >= len(*s) {
		*s = append(*s, make([]uint64, i+1-len(*s))...)
	}
	(*s)[i] |= 1 << (uint(slot) & 63)
}

func (s slotSet) unset(slot int32) {
	if i := int(slot) >> 6; i < len(s) {
		s[i] &^= 1 << (uint(slot) & 63)
	}
}
