package replay

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runStored reads the captures through Run with HashStored, as the report
// does, and returns what the reader stored of them.
func runStored(t *testing.T, names []string, stdin io.Reader) ([]StoredFile, *Reader) {
	t.Helper()
	rd, err := Open(names, stdin, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.HashStored(sha256.New)
	if _, err := Run(rd, Options{Messages: true}, func(*Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return rd.Stored(), rd
}

// checkStored checks that got is data's size and SHA-256.
func checkStored(t *testing.T, what string, got StoredFile, data []byte) {
	t.Helper()
	want := sha256.Sum256(data)
	if got.Size != int64(len(data)) || !bytes.Equal(got.Sum, want[:]) {
		t.Errorf("%s: stored as %d bytes, SHA-256 %x; want %d bytes, %x", what, got.Size, got.Sum, len(data), want)
	}
}

// Every capture is hashed as stored, compressed or not and whatever its
// format, in the one read that gives its events: the reader reads each of
// its bytes once (Progress counts every byte read as stored), and the
// hash is of them all, also where the events end before the file does (a
// gzip member followed by data that is not gzip, and a HAR document
// followed by more).
func TestHashStoredOneRead(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, glob := range []string{"../testdata/*.jsonl", "../testdata/formats/*"} {
		names, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			files[name] = readTestFile(t, name)
		}
	}
	text := captureText(20000) // past the reader's first reads
	// The junk is larger than anything read ahead of the damage: its end
	// is read only for the hash.
	junk := strings.Repeat("not gzip\n", 1<<17)
	for name, data := range map[string][]byte{
		"plain":            []byte(text),
		"gzip":             gzipBytes(t, text),
		"zstd":             zstdBytes(t, text),
		"gzip then junk":   append(gzipBytes(t, text), junk...),
		"har then more":    append(readTestFile(t, "../testdata/formats/reconnect.har"), junk...),
		"no final newline": []byte(strings.TrimSuffix(text, "\n")),
		"empty":            nil,
	} {
		files[writeFile(t, dir, strings.ReplaceAll(name, " ", "-"), data)] = data
	}
	for name, data := range files {
		stored, rd := runStored(t, []string{name}, nil)
		if len(stored) != 1 || stored[0].Name != name {
			t.Fatalf("%s: stored %+v", name, stored)
		}
		checkStored(t, name, stored[0], data)
		if read, _ := rd.Progress(); read != int64(len(data)) {
			t.Errorf("%s: read %d bytes of %d", name, read, len(data))
		}
	}
}

// A capture whose events end at damage long before the file does is read
// on to its end for the hash: the damage is where the gzip member ends,
// the hash is the whole file's.
func TestHashStoredReadsOnAfterDamage(t *testing.T) {
	text := captureText(20000)
	data := append(gzipBytes(t, text), strings.Repeat("not gzip\n", 1<<17)...)
	p := writeFile(t, t.TempDir(), "junk.gz", data)
	rd, err := Open([]string{p}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.HashStored(sha256.New)
	readAll(t, rd)
	var d *DamageError
	if !errors.As(rd.Err(), &d) || d.Offset >= int64(len(data))/2 {
		t.Fatalf("damage %v, want one near the gzip member's end", rd.Err())
	}
	checkStored(t, "after damage", rd.Stored()[0], data)
}

// onlyReader hides every method of its reader but Read, as a pipe would,
// and counts the bytes read.
type onlyReader struct {
	r io.Reader
	n int
}

func (o *onlyReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.n += n
	return n, err
}

// The standard input, which can be read only once, is hashed as it is
// read, in its place among the files: each byte of it is read once.
func TestHashStoredStandardInput(t *testing.T) {
	dir := t.TempDir()
	a, b := []byte(captureText(3)), gzipBytes(t, captureText(5))
	in := []byte(captureText(4000))
	stdin := &onlyReader{r: bytes.NewReader(in)}
	stored, _ := runStored(t, []string{writeFile(t, dir, "a", a), StdinName, writeFile(t, dir, "b.gz", b)}, stdin)
	if len(stored) != 3 || stored[1].Name != StdinName {
		t.Fatalf("stored %+v", stored)
	}
	checkStored(t, "a", stored[0], a)
	checkStored(t, "standard input", stored[1], in)
	checkStored(t, "b.gz", stored[2], b)
	if stdin.n != len(in) {
		t.Errorf("read %d bytes of the standard input's %d", stdin.n, len(in))
	}
}

// A capture whose reading was stopped has no hash, and is not read on to
// its end for one: its size is the file's, the captures after it are not
// reached and have none either.
func TestHashStoredStopped(t *testing.T) {
	dir := t.TempDir()
	data := []byte(captureText(100000))
	p, after := writeFile(t, dir, "big", data), writeFile(t, dir, "after", []byte(captureText(1)))
	rd, err := Open([]string{p, after}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.HashStored(sha256.New)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	rd.Stop(errors.New("interrupted"))
	if _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after Stop: %v", err)
	}
	stored := rd.Stored()
	if stored[0].Sum != nil || stored[0].Size != int64(len(data)) || stored[1].Sum != nil {
		t.Errorf("stored %+v after a stop", stored)
	}
	if read, _ := rd.Progress(); read >= int64(len(data)) {
		t.Errorf("read %d bytes of %d after a stop at the first line", read, len(data))
	}
}

func readTestFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
