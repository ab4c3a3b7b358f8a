package store

import "os"

// BoltFile returns the file a bbolt DB has open, for tests that break it.
func BoltFile(db DB) *os.File {
	d := db.(*boltDB)
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.file
}
