package iostreams

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeHello(w io.Writer, _ bool) error {
	_, err := io.WriteString(w, "hello\n")
	return err
}

// TestOutFileDevice: a device (/dev/null) is written to without --force:
// writing to it replaces nothing. Before, it was refused as an existing
// file, and so was a symlink to it (as /dev/stdout is).
func TestOutFileDevice(t *testing.T) {
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode().IsRegular() {
		t.Skip("no null device:", err)
	}
	names := []string{os.DevNull}
	link := filepath.Join(t.TempDir(), "null")
	if err := os.Symlink(os.DevNull, link); err == nil {
		names = append(names, link)
	}
	for _, name := range names {
		if err := CheckOutFile(name, false); err != nil {
			t.Errorf("CheckOutFile(%s, false): %v", name, err)
		}
		ios, _, _ := Test("")
		if err := ios.WriteOutFile(name, false, writeHello); err != nil {
			t.Errorf("WriteOutFile(%s, false): %v", name, err)
		}
		if fi, err := os.Stat(name); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s is not the device after writing: %v", name, err)
		}
	}
}

// TestOutFileRegularRefused: without --force an existing regular file,
// or a symlink to one, is refused before and when writing and left as it
// was; so is a symlink to nothing, which writing would make a file of.
func TestOutFileRegularRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kept.html")
	if err := os.WriteFile(file, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := []string{file}
	link := filepath.Join(dir, "link.html")
	dangling := filepath.Join(dir, "dangling.html")
	if err := os.Symlink(file, link); err == nil {
		names = append(names, link)
		if err := os.Symlink(filepath.Join(dir, "nothing.html"), dangling); err != nil {
			t.Fatal(err)
		}
		names = append(names, dangling)
	}
	for _, name := range names {
		want := name + " exists: pass --force to replace it, or --out another file"
		if err := CheckOutFile(name, false); err == nil || err.Error() != want {
			t.Errorf("CheckOutFile(%s, false) = %v, want %q", name, err, want)
		}
		ios, _, _ := Test("")
		err := ios.WriteOutFile(name, false, writeHello)
		var oe *OpenError
		if !errors.As(err, &oe) || err.Error() != want {
			t.Errorf("WriteOutFile(%s, false) = %v, want OpenError %q", name, err, want)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "kept\n" {
		t.Errorf("the file is %q, %v; want it kept", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing.html")); err == nil {
		t.Error("writing through a symlink to nothing made a file")
	}
}

// TestOutFileWrites: a new name is created; with --force a regular file
// is replaced; a directory is an error either way.
func TestOutFileWrites(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "new.html")
	ios, _, _ := Test("")
	if err := ios.WriteOutFile(name, false, writeHello); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("old, and longer than hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckOutFile(name, true); err != nil {
		t.Errorf("CheckOutFile(%s, true): %v", name, err)
	}
	if err := ios.WriteOutFile(name, true, writeHello); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "hello\n" {
		t.Errorf("with force the file is %q, want %q", b, "hello\n")
	}
	for _, force := range []bool{false, true} {
		if err := CheckOutFile(dir, force); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("CheckOutFile(dir, %v) = %v, want a directory error", force, err)
		}
		if err := ios.WriteOutFile(dir, force, writeHello); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("WriteOutFile(dir, %v) = %v, want a directory error", force, err)
		}
	}
}

// TestIsStdout: a --out naming the file standard output is open on (by
// its name, or a symlink to it) is standard output; another file, "-"
// and a missing name are not, nor is anything when standard output is
// not a file of this process (tests).
func TestIsStdout(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	other := filepath.Join(dir, "other.html")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ios := &IOStreams{Out: out, stdout: out}
	want := map[string]bool{out.Name(): true, other: false, "-": false, "": false, filepath.Join(dir, "none"): false}
	if link := filepath.Join(dir, "link.html"); os.Symlink(out.Name(), link) == nil {
		want[link] = true
	}
	for name, w := range want {
		if got := ios.IsStdout(name); got != w {
			t.Errorf("IsStdout(%q) = %v, want %v", name, got, w)
		}
	}
	if test, _, _ := Test(""); test.IsStdout(out.Name()) {
		t.Errorf("IsStdout(%q) with no standard output file = true", out.Name())
	}
	// Standard output opened on a file that holds something (>> or <>):
	// writing it would write after or over what it holds.
	if _, err := out.WriteString("<!DOCTYPE html>"); err != nil {
		t.Fatal(err)
	}
	if ios.IsStdout(out.Name()) {
		t.Errorf("IsStdout(%q) of a file holding bytes = true", out.Name())
	}
	if ios.CheckNotInput([]string{other, out.Name()}) == nil || ios.CheckNotInput([]string{other, "-"}) != nil {
		t.Error("CheckNotInput: want an error for the file standard output is open on only")
	}
	if ios.CheckOutNotInput(out.Name(), []string{other, filepath.Join(dir, ".", "page.html")}) == nil || ios.CheckOutNotInput(out.Name(), []string{other, "-"}) != nil || ios.CheckOutNotInput("-", []string{"-"}) != nil {
		t.Error("CheckOutNotInput: want an error for one file by two names only")
	}
	// A capture read from standard input is the file behind it: written
	// through standard output or --out, it would be written into.
	in, err := os.Open(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ios.In = in
	if err := ios.CheckNotInput([]string{"-"}); err == nil || !strings.Contains(err.Error(), `standard input ("-")`) {
		t.Errorf("CheckNotInput(-) with standard input on standard output's file = %v, want an error", err)
	}
	if ios.CheckOutNotInput(out.Name(), []string{"-"}) == nil || ios.CheckOutNotInput(other, []string{"-"}) != nil {
		t.Error("CheckOutNotInput: want an error for --out naming the file behind standard input only")
	}
}

// TestWriteOutFileTTY: write is told that standard output is a terminal
// when it is, and that a regular file is not.
func TestWriteOutFileTTY(t *testing.T) {
	for _, tty := range []bool{false, true} {
		ios, _, _ := Test("")
		ios.OutTTY = tty
		var got bool
		if err := ios.WriteOutFile("-", false, func(w io.Writer, t bool) error { got = t; return nil }); err != nil {
			t.Fatal(err)
		}
		if got != tty {
			t.Errorf("standard output a terminal %v: write told %v", tty, got)
		}
	}
	ios, _, _ := Test("")
	ios.OutTTY = true
	got := true
	if err := ios.WriteOutFile(filepath.Join(t.TempDir(), "f"), false, func(w io.Writer, t bool) error { got = t; return nil }); err != nil {
		t.Fatal(err)
	}
	if got {
		t.Error("a regular file: write told it is a terminal")
	}
}
