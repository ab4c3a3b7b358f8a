// Package wiretest reads the examples of PROTOCOL.md for the golden tests of
// the packages that define wire layouts (wire, replicate, predict), so each
// test checks its encoder and decoder against the bytes the document shows.
package wiretest

import (
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Blocks returns the fenced blocks of the markdown file at path whose info
// string is tag followed by a name ("```golden hello"), by name, as the bytes
// their hex digits spell. Text after '#' on a line is a comment. It fails the
// test on an unreadable file, bad hex or a name used twice.
func Blocks(t testing.TB, path, tag string) map[string][]byte {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```" + regexp.QuoteMeta(tag) + " ([a-z0-9-]+)\n(.*?)```")
	blocks := map[string][]byte{}
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		var digits strings.Builder
		for _, line := range strings.Split(m[2], "\n") {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			digits.WriteString(strings.Join(strings.Fields(line), ""))
		}
		b, err := hex.DecodeString(digits.String())
		if err != nil {
			t.Fatalf("%s: %s block %q: %v", path, tag, m[1], err)
		}
		if _, dup := blocks[m[1]]; dup {
			t.Fatalf("%s has two %s blocks named %q", path, tag, m[1])
		}
		blocks[m[1]] = b
	}
	return blocks
}

// Tables returns the fenced blocks of the markdown file at path whose info
// string is tag followed by a name, by name, as their lines, each trimmed of
// spaces at its ends; empty lines are left out.
func Tables(t testing.TB, path, tag string) map[string][]string {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```" + regexp.QuoteMeta(tag) + " ([a-z0-9-]+)\n(.*?)```")
	tables := map[string][]string{}
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		var lines []string
		for _, line := range strings.Split(m[2], "\n") {
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
		if _, dup := tables[m[1]]; dup {
			t.Fatalf("%s has two %s tables named %q", path, tag, m[1])
		}
		tables[m[1]] = lines
	}
	return tables
}
