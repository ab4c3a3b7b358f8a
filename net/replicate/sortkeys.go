package replicate

import "slices"

// sortKeys sorts keys by their upper 32 bits (a network id; the lower bits
// say where the key came from and are unique), least significant byte first,
// skipping the bytes every key shares. It returns the sorted keys and the
// scratch slice, either of which may be the one passed.
//
// Keys that come as one or two ascending runs (a send tick's changes, come
// in id order, after the entities whose wait ended) take one pass.
func sortKeys(keys, tmp []uint64) ([]uint64, []uint64) {
	split, runs := 0, 1
	for i := 1; i < len(keys) && runs <= 2; i++ {
		if keys[i] < keys[i-1] {
			split = i
			runs++
		}
	}
	switch runs {
	case 1:
		return keys, tmp
	case 2:
		if cap(tmp) < len(keys) {
			tmp = make([]uint64, len(keys), 2*len(keys))
		}
		tmp = tmp[:len(keys)]
		mergeRuns(tmp, keys[:split], keys[split:])
		return tmp, keys
	}
	if len(keys) < 48 {
		slices.Sort(keys)
		return keys, tmp
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, k := range keys {
		or |= k
		and &= k
	}
	vary := (or ^ and) >> 32
	if cap(tmp) < len(keys) {
		tmp = make([]uint64, len(keys), 2*len(keys))
	}
	tmp = tmp[:len(keys)]
	for shift := uint(32); vary != 0; shift, vary = shift+8, vary>>8 {
		if vary&0xff == 0 {
			continue
		}
		var count [257]int
		for _, k := range keys {
			count[(k>>shift)&0xff+1]++
		}
		for i := 1; i < 257; i++ {
			count[i] += count[i-1]
		}
		for _, k := range keys {
			d := (k >> shift) & 0xff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	return keys, tmp
}

// mergeRuns merges the ascending runs a and b into dst, which holds
// len(a)+len(b) keys.
func mergeRuns(dst, a, b []uint64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
